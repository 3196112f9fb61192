// Runs push tasks one after the other, in the order they were handed in, so that a push waiting
// for the domain's answer (who may have it: blocks, settings) is never overtaken by a later one (a
// message and its edit arrive in order). A task that fails is logged and its push dropped: without
// the answer, it could reach someone who must not have it.
import type { Logger } from '../../src/shared/logger.js';

export function inOrder(log: Logger, what: string): (task: () => Promise<void>) => void {
  let chain: Promise<void> = Promise.resolve();
  return (task) => {
    chain = chain.then(task).catch((err: unknown) => log.warn({ err: (err as Error).message }, `${what} not pushed`));
  };
}

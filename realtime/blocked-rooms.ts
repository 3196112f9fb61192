// Live events and blocks (CONTRACT §21): what one user does is not pushed to the sockets of those
// who blocked them (their content, comments, messages), and presence and typing go to neither side
// of a block. Each push leaves out the rooms of those users (`except(rooms.user(id))`, which the
// adapter carries to every node). The lists come from the read model's per-node block cache
// (src/blocks/service.ts), dropped on every node before a block's request answers.
import type { Logger } from '../src/shared/logger.js';
import type { BlockService } from '../src/blocks/service.js';
import { rooms } from './events.js';

/**
 * Runs push tasks one after the other, in the order they were handed in, so that a push waiting
 * for a block lookup is never overtaken by a later one (a message and its edit arrive in order).
 * A task that fails is logged and its push dropped: without the list, it could reach a blocker.
 */
export function inOrder(log: Logger, what: string): (task: () => Promise<void>) => void {
  let chain: Promise<void> = Promise.resolve();
  return (task) => {
    chain = chain.then(task).catch((err: unknown) => log.warn({ err: (err as Error).message }, `${what} not pushed: blocks unreadable`));
  };
}

/** The user rooms of those who blocked `userId` (they get nothing of `userId`'s). */
export async function blockerRooms(blocks: BlockService, userId: string): Promise<string[]> {
  return (await blocks.blockersOf(userId)).map(rooms.user);
}

/** The user rooms of everyone on either side of a block with `userId` (no presence or typing between them). */
export async function eitherWayRooms(blocks: BlockService, userId: string): Promise<string[]> {
  return (await blocks.eitherWayOf(userId)).map(rooms.user);
}

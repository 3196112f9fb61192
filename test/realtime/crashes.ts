// The test server runs in the test's own process: what would stop a node (an uncaught exception,
// an unhandled rejection) is recorded here, so a test can say which step caused it and go on to
// check that the node still serves.
export interface CrashWatch {
  /** What was recorded since the last call (and forgets it). */
  take(): string[];
  stop(): void;
}

export function watchForCrashes(): CrashWatch {
  const seen: string[] = [];
  const onException = (err: unknown) => seen.push(`uncaught exception: ${(err as Error)?.stack ?? String(err)}`);
  const onRejection = (reason: unknown) => seen.push(`unhandled rejection: ${(reason as Error)?.stack ?? String(reason)}`);
  process.on('uncaughtExceptionMonitor', onException);
  process.on('unhandledRejection', onRejection);
  return {
    take: () => seen.splice(0),
    stop: () => {
      process.off('uncaughtExceptionMonitor', onException);
      process.off('unhandledRejection', onRejection);
    },
  };
}

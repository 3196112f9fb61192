// A wait on PostgreSQL that ends: `send` is given `ms` to answer; past that `giveUp` runs (it
// destroys the connection, whose answer may still come) and the wait fails as an outage (503,
// src/shared/unavailable.ts). A late answer or failure of `send` is then ignored.
export function answeredWithin<T>(ms: number, send: () => Promise<T>, giveUp: () => void, what = 'a statement'): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      giveUp();
      reject(Object.assign(new Error(`PostgreSQL did not answer ${what} within ${ms} ms`), { code: 'ETIMEDOUT' }));
    }, ms);
    send().then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err: unknown) => (clearTimeout(timer), reject(err)),
    );
  });
}

/** Gives a node-postgres connection up the way pg-pool does itself: its socket is destroyed. */
export function destroyConnection(client: object): void {
  (client as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

// The internal event bus, typed by an event map (name → payload): publish and subscribe are checked
// by the compiler against the map. Domain services publish after their change is committed;
// realtime/ subscribes and pushes to Socket.IO rooms (which the Redis adapter carries to every
// node), jobs may subscribe too. Listeners never affect the publisher: a throwing listener is
// logged and ignored.
//
// A listener subscribed with `{ awaited: true }` (the read caches, which tell the other nodes) is
// one a publisher may wait for: `publishAndWait` resolves when those listeners' promises have
// settled, so a request that revoked a session or edited an item answers only after every node
// has been told. Other listeners are never waited for.
import { EventEmitter } from 'node:events';
import type { Logger } from './logger.js';

type Listener = (payload: never) => unknown;

export class EventBus<Events extends object> {
  private readonly emitter = new EventEmitter();
  private readonly awaited = new WeakSet<Listener>();

  constructor(private readonly log: Logger) {
    this.emitter.setMaxListeners(100);
  }

  publish<K extends keyof Events & string>(name: K, payload: Events[K]): void {
    void this.run(name, payload);
  }

  /** Publishes, then waits for the awaited listeners (failures are logged, never thrown). */
  async publishAndWait<K extends keyof Events & string>(name: K, payload: Events[K]): Promise<void> {
    await Promise.all(this.run(name, payload));
  }

  subscribe<K extends keyof Events & string>(name: K, listener: (payload: Events[K]) => unknown, options: { awaited?: boolean } = {}): () => void {
    if (options.awaited) this.awaited.add(listener);
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }

  /** Calls every listener; returns the awaited listeners' settled promises. */
  private run(name: string, payload: unknown): Promise<void>[] {
    const pending: Promise<void>[] = [];
    for (const listener of this.emitter.listeners(name) as ((payload: unknown) => unknown)[]) {
      try {
        const result: unknown = listener(payload);
        if (result instanceof Promise) {
          const settled = result.then(
            () => undefined,
            (err: unknown) => this.log.error({ err, event: name }, 'event listener failed'),
          );
          if (this.awaited.has(listener)) pending.push(settled);
        }
      } catch (err) {
        this.log.error({ err, event: name }, 'event listener failed');
      }
    }
    return pending;
  }
}

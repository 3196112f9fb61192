// The internal event bus, typed by an event map (name → payload): publish and subscribe are checked
// by the compiler against the map. Domain services publish after their change is committed;
// realtime/ subscribes and pushes to Socket.IO rooms (which the Redis adapter carries to every
// node), jobs may subscribe too. Listeners never affect the publisher: a throwing listener is
// logged and ignored.
import { EventEmitter } from 'node:events';
import type { Logger } from './logger.js';

export class EventBus<Events extends object> {
  private readonly emitter = new EventEmitter();

  constructor(private readonly log: Logger) {
    this.emitter.setMaxListeners(100);
  }

  publish<K extends keyof Events & string>(name: K, payload: Events[K]): void {
    for (const listener of this.emitter.listeners(name)) {
      try {
        const result: unknown = listener(payload);
        if (result instanceof Promise) {
          result.catch((err) => this.log.error({ err, event: name }, 'event listener failed'));
        }
      } catch (err) {
        this.log.error({ err, event: name }, 'event listener failed');
      }
    }
  }

  subscribe<K extends keyof Events & string>(name: K, listener: (payload: Events[K]) => unknown): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}

// The node's domain event bus: the typed bus of src/shared/events.ts whose subscribers are the
// handlers listed in src/event-handlers.ts. `handle` is how code of src/, realtime/ and jobs/
// subscribes; it refuses a pair the table does not list, so a new subscriber cannot be wired in
// without appearing there. Plain `subscribe` stays for tests that watch what the domain publishes;
// the table test shows that a running node has no such subscriber.
import { EventBus } from './shared/events.js';
import type { Logger } from './shared/logger.js';
import type { DomainEvents } from './events.js';
import { handlerKind, type DomainEventName, type HandlerKind, type HandlerName } from './event-handlers.js';

/** One subscription on the bus: a listed handler, or (handler null) a plain `subscribe`. */
export interface Subscription {
  event: DomainEventName;
  handler: string | null;
  kind: HandlerKind | null;
}

export class DomainEventBus extends EventBus<DomainEvents> {
  private readonly subscriptions = new Set<Subscription>();

  constructor(log: Logger) {
    super(log);
  }

  /** Subscribes `handler`, listed for `name` in EVENT_HANDLERS; throws for a pair the table lacks. */
  handle<K extends DomainEventName>(
    name: K,
    handler: HandlerName<K>,
    listener: (payload: DomainEvents[K]) => unknown,
    options: { awaited?: boolean } = {},
  ): () => void {
    const kind = handlerKind(name, handler);
    if (!kind) throw new Error(`event handler "${handler}" of "${name}" is not listed in src/event-handlers.ts`);
    return this.track({ event: name, handler, kind }, super.subscribe(name, listener, options));
  }

  /** A listener outside the table: for tests watching the domain, never for the node's own code. */
  override subscribe<K extends DomainEventName>(name: K, listener: (payload: DomainEvents[K]) => unknown, options: { awaited?: boolean } = {}): () => void {
    return this.track({ event: name, handler: null, kind: null }, super.subscribe(name, listener, options));
  }

  /** What is subscribed now, in subscription order. */
  subscribed(): Subscription[] {
    return [...this.subscriptions];
  }

  private track(subscription: Subscription, unsubscribe: () => void): () => void {
    this.subscriptions.add(subscription);
    return () => {
      this.subscriptions.delete(subscription);
      unsubscribe();
    };
  }
}

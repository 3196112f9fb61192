// A uWebSockets.js app whose handlers can be let go. uWS keeps every handler it was given (route
// callbacks, websocket behaviours) for as long as the process lives, even after the app's listen
// socket is closed; each handler holds, through what it closes over, the whole service that
// registered it. A process that starts and stops services in turn (the test suite runs many in one
// process) would keep every stopped service's memory. Handlers registered through this app go
// through a slot that `release` empties once the service has stopped; a request that still reaches
// a released handler (a keep-alive connection opened before) has its connection closed, since uWS
// ends the process when a handler returns without answering.
import type { HttpResponse, TemplatedApp, WebSocketBehavior } from 'uWebSockets.js';

/** The methods that register an HTTP route: (pattern, handler(res, req)). */
const ROUTE_METHODS = new Set<PropertyKey>(['get', 'post', 'put', 'patch', 'del', 'options', 'head', 'connect', 'trace', 'any']);

type Handler = (...args: unknown[]) => unknown;

export interface ReleasableApp {
  app: TemplatedApp;
  /** Lets go of every handler registered so far (call once the service has stopped). */
  release: () => void;
}

export function releasableApp(target: TemplatedApp): ReleasableApp {
  const slots: Slot[] = [];
  // Properties set on the app (a wrapped `publish`, say) close over the service too.
  const setKeys = new Set<PropertyKey>();
  const app: TemplatedApp = new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop);
      if (typeof value !== 'function') return value;
      const method = value as Handler;
      if (ROUTE_METHODS.has(prop)) {
        return (pattern: string, handler: Handler) => {
          method.call(obj, pattern, through(slots, handler, true));
          return app;
        };
      }
      if (prop === 'ws') {
        return (pattern: string, behavior: WebSocketBehavior<unknown>) => {
          const wrapped: Record<string, unknown> = { ...behavior };
          for (const [key, v] of Object.entries(behavior)) if (typeof v === 'function') wrapped[key] = through(slots, v as Handler, key === 'upgrade');
          method.call(obj, pattern, wrapped);
          return app;
        };
      }
      return method.bind(obj);
    },
    set(obj, prop, value) {
      setKeys.add(prop);
      return Reflect.set(obj, prop, value);
    },
  });
  return {
    app,
    release: () => {
      for (const slot of slots) slot.handler = null;
      for (const key of setKeys) Reflect.deleteProperty(target, key);
    },
  };
}

interface Slot {
  handler: Handler | null;
}

/**
 * The handler uWS is given: calls the slot's handler while there is one. Made out here so that
 * what uWS keeps closes over the slot alone, not over the app or anything else of the service.
 * `answersRequest`: the first argument is an HttpResponse that must be answered or closed.
 */
function through(slots: Slot[], handler: Handler, answersRequest: boolean): Handler {
  const slot: Slot = { handler };
  slots.push(slot);
  return (...args) => {
    if (slot.handler) return slot.handler(...args);
    if (answersRequest) (args[0] as HttpResponse).close();
    return undefined;
  };
}

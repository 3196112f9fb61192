// A client as an app would run it: one socket.io-client Manager (one connection) carrying several
// namespaces, reconnecting by itself, optionally to another node (the `urls` are tried in turn,
// as a load balancer would send it elsewhere). Records every event it gets, once per delivery.
import { Manager, type Socket } from 'socket.io-client';
import type { Transport } from './socket-client.js';

export interface Received {
  namespace: string;
  event: string;
  payload: any;
}

export class RecoveringClient {
  readonly manager: Manager;
  readonly sockets = new Map<string, Socket>();
  readonly received: Received[] = [];
  /** Node URLs in the order reconnects try them. */
  private readonly urls: string[];
  private urlIndex = 0;
  /** Each connect of a namespace: the node's URL and whether the session was recovered (for failure messages). */
  readonly connects: string[] = [];
  readonly transport: Transport;

  constructor(urls: string[], namespaces: string[], token: string, transport: Transport) {
    this.urls = urls;
    this.manager = new Manager(urls[0], {
      transports: [transport],
      reconnectionDelay: 100,
      reconnectionDelayMax: 500,
      randomizationFactor: 0,
      timeout: 10_000,
      autoConnect: false,
    });
    this.manager.on('reconnect_attempt', () => {
      // After a drop, try the next node (the first one may be the node that went away).
      this.urlIndex = (this.urlIndex + 1) % this.urls.length;
      Reflect.set(this.manager, 'uri', this.urls[this.urlIndex]);
    });
    for (const namespace of namespaces) {
      const socket = this.manager.socket(namespace, { auth: { token } });
      socket.onAny((event: string, payload: unknown) => this.received.push({ namespace, event, payload }));
      this.sockets.set(namespace, socket);
      socket.on('connect', () => this.connects.push(`${namespace} ${String(Reflect.get(this.manager, 'uri'))} recovered=${socket.recovered}`));
    }
    this.transport = transport;
  }

  socket(namespace: string): Socket {
    return this.sockets.get(namespace)!;
  }

  /** Connects every namespace; resolves once all are connected. */
  async connect(): Promise<void> {
    await Promise.all([...this.sockets.values()].map((s) => connected(s)));
  }

  /**
   * Cuts the connection the way a network drop does (the client's transport closes; it is not a
   * disconnect()) and keeps the client away for `awayMs` before it reconnects by itself.
   */
  cut(awayMs: number): void {
    this.manager.reconnectionDelay(awayMs);
    this.manager.reconnectionDelayMax(awayMs);
    this.manager.engine.close();
  }

  /** Resolves once every namespace has reconnected (after a cut or a node going away). */
  reconnected(timeoutMs = 30_000): Promise<void> {
    return Promise.all([...this.sockets.values()].map((s) => connected(s, timeoutMs, true))).then(() => {
      this.manager.reconnectionDelay(100);
      this.manager.reconnectionDelayMax(500);
    });
  }

  /** What arrived of `event` on `namespace`, by `key`. */
  keys(namespace: string, event: string, key: (payload: any) => string): string[] {
    return this.received.filter((r) => r.namespace === namespace && r.event === event).map((r) => key(r.payload));
  }

  close(): void {
    for (const socket of this.sockets.values()) socket.disconnect();
    this.manager.engine?.close();
  }
}

function connected(socket: Socket, timeoutMs = 10_000, again = false): Promise<void> {
  if (!again && socket.connected) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a namespace did not connect within ${timeoutMs} ms`)), timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve();
    });
    if (!again) socket.connect();
  });
}

/** Polls `check` until it is true (a slow machine gets time). */
export async function until(check: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

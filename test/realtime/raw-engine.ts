// A raw Engine.IO v4 / Socket.IO v5 client over a plain websocket (the `ws` package), for tests
// that must drop a connection at an exact step of its handshake or life, or send packets that
// socket.io-client never sends (a CONNECT twice, an event without an ack id, binary junk).
// Packets are written as the protocol does: `40/chat,{"token":…}` connects a namespace,
// `42/chat,7["room:join",{…}]` emits with ack id 7, the server answers `43/chat,7[{…}]`.
import WebSocket from 'ws';

export type Drop = 'terminate' | 'close';

export class RawEngine {
  private readonly received: string[] = [];
  private readonly waiters: { match: (packet: string) => boolean; resolve: (packet: string) => void }[] = [];
  private nextAckId = 1;
  /** Resolves when the websocket has closed (either side). */
  readonly closed: Promise<void>;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('message', (data, isBinary) => {
      const packet = isBinary ? '<binary>' : (data as Buffer).toString();
      // Engine.IO ping: answer, or the server closes the connection after pingTimeout.
      if (packet === '2') return this.send('3');
      this.received.push(packet);
      for (const waiter of this.waiters.splice(0)) {
        if (waiter.match(packet)) waiter.resolve(packet);
        else this.waiters.push(waiter);
      }
    });
    ws.on('error', () => undefined);
  }

  /** The websocket upgrade request alone: resolves once it is sent, without waiting for anything. */
  static start(baseUrl: string): WebSocket {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
    ws.on('error', () => undefined);
    return ws;
  }

  /** Opens the websocket and waits for the Engine.IO open packet. */
  static async open(baseUrl: string, timeoutMs = 10_000): Promise<RawEngine> {
    const ws = RawEngine.start(baseUrl);
    const engine = new RawEngine(ws);
    await engine.next((p) => p.startsWith('0{'), timeoutMs);
    return engine;
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(packet: string | Buffer): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(packet);
  }

  /** The namespace CONNECT packet with `auth` (e.g. `{token}`, or `{token, pid, offset}` to recover). */
  connect(namespace: string, auth: unknown): void {
    this.send(`40${namespace},${JSON.stringify(auth)}`);
  }

  /** Resolves with the namespace's answer to CONNECT: `40…` (connected) or `44…` (refused). */
  connected(namespace: string, timeoutMs = 10_000): Promise<string> {
    return this.next((p) => p.startsWith(`40${namespace},`) || p.startsWith(`44${namespace},`), timeoutMs);
  }

  /** Emits `event` with `args`; with `ack`, an ack id is asked for and its id returned. */
  emit(namespace: string, event: string, args: unknown[], ack = true): number | null {
    const id = ack ? this.nextAckId++ : null;
    this.send(`42${namespace},${id ?? ''}${JSON.stringify([event, ...args])}`);
    return id;
  }

  /** The ack packet's argument for ack `id` on `namespace`. */
  async ack(namespace: string, id: number, timeoutMs = 10_000): Promise<unknown> {
    const packet = await this.next((p) => p.startsWith(`43${namespace},${id}[`), timeoutMs);
    return (JSON.parse(packet.slice(`43${namespace},${id}`.length)) as unknown[])[0];
  }

  /** The next packet (already received or to come) that `match`es. */
  next(match: (packet: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const seen = this.received.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching packet within ${timeoutMs} ms; got ${JSON.stringify(this.received.slice(-5))}`)), timeoutMs);
      this.waiters.push({ match, resolve: (p) => (clearTimeout(timer), resolve(p)) });
    });
  }

  /** Packets received so far. */
  packets(): string[] {
    return [...this.received];
  }

  /** Goes away: `terminate` cuts the TCP connection, `close` sends a close frame first. */
  drop(how: Drop = 'terminate'): void {
    if (how === 'terminate') this.ws.terminate();
    else this.ws.close();
  }
}

export const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

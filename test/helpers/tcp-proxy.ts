// A TCP proxy of the test's own between a node and a server it depends on (PostgreSQL, Redis),
// for faults that stopping the server cannot make: a link that stops answering while its
// connections stay open. While it holds, nothing passes either way and new connections are
// accepted but go nowhere; what was sent meanwhile is kept and, on resume, delivered in order,
// followed by the closes that happened meanwhile: as TCP delivers what it retransmits once a
// partition heals. So a statement sent into a held link runs when the link returns, unless the
// server has a reason to refuse it then.
import net from 'node:net';

interface Link {
  client: net.Socket;
  server: net.Socket | null;
  toServer: Buffer[];
  toClient: Buffer[];
  clientGone: boolean;
  serverGone: boolean;
}

export class TcpProxy {
  private readonly listener: net.Server;
  private readonly links = new Set<Link>();
  private holding = false;
  private holdPattern: string | null = null;
  private readonly settledWaiters: (() => void)[] = [];
  private listenedOn = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.listener = net.createServer((client) => this.accept(client));
  }

  /** A proxy on a free local port (or `listenPort`: one reopened after `close`) forwarding to host:port. */
  static async start(targetHost: string, targetPort: number, listenPort = 0): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await new Promise<void>((resolve, reject) => {
      proxy.listener.once('error', reject);
      proxy.listener.listen(listenPort, '127.0.0.1', resolve);
    });
    proxy.listenedOn = (proxy.listener.address() as net.AddressInfo).port;
    return proxy;
  }

  /** A new proxy on this one's port to the same server (after `close`: the link is back). */
  reopen(): Promise<TcpProxy> {
    return TcpProxy.start(this.targetHost, this.targetPort, this.listenedOn);
  }

  /** A proxy in front of the server a URL names (postgres://…, redis://…; `defaultPort` when it names none). */
  static before(url: string, defaultPort: number): Promise<TcpProxy> {
    const target = new URL(url);
    return TcpProxy.start(target.hostname, Number(target.port || defaultPort));
  }

  /** `url` (same credentials, path and query) going through this proxy. */
  through(url: string): string {
    const via = new URL(url);
    via.host = `127.0.0.1:${this.port}`;
    return via.toString();
  }

  get port(): number {
    return this.listenedOn;
  }

  /** Whether the link is held now. */
  get held(): boolean {
    return this.holding;
  }

  /** From now on nothing passes, either way; every connection stays open. */
  hold(): void {
    this.holding = true;
  }

  /** Holds from the first chunk a client sends that contains `pattern` (that chunk included). */
  holdOnClientText(pattern: string): void {
    this.holdPattern = pattern;
  }

  /** Delivers what was held, in order, then the closes that came meanwhile, and forwards again. */
  resume(): void {
    this.holding = false;
    this.holdPattern = null;
    for (const link of this.links) {
      if (!link.server) this.connect(link);
      else this.flush(link);
    }
  }

  /** Resolves once every connection whose client has gone is closed on the server's side too. */
  settled(): Promise<void> {
    if (this.isSettled()) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  async close(): Promise<void> {
    for (const link of this.links) {
      link.client.destroy();
      link.server?.destroy();
    }
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    const link: Link = { client, server: null, toServer: [], toClient: [], clientGone: false, serverGone: false };
    this.links.add(link);
    client.on('data', (chunk) => {
      if (this.holdPattern !== null && chunk.includes(this.holdPattern)) this.hold();
      if (this.holding || !link.server || link.server.connecting) link.toServer.push(chunk);
      else link.server.write(chunk);
    });
    client.on('error', () => undefined);
    client.on('close', () => {
      link.clientGone = true;
      if (!this.holding) this.flush(link);
    });
    if (!this.holding) this.connect(link);
  }

  private connect(link: Link): void {
    const server = net.connect(this.targetPort, this.targetHost, () => this.flush(link));
    link.server = server;
    server.on('data', (chunk) => {
      if (this.holding) link.toClient.push(chunk);
      else link.client.write(chunk);
    });
    server.on('error', () => undefined);
    server.on('close', () => {
      link.serverGone = true;
      if (!this.holding) this.flush(link);
      this.checkSettled();
    });
  }

  /** Writes what was kept, then passes on a close that happened meanwhile. */
  private flush(link: Link): void {
    const server = link.server;
    if (this.holding || !server || server.connecting) return;
    for (const chunk of link.toServer.splice(0)) server.write(chunk);
    if (!link.clientGone) for (const chunk of link.toClient.splice(0)) link.client.write(chunk);
    if (link.clientGone && !link.serverGone) server.end();
    if (link.serverGone && !link.clientGone) link.client.destroy();
    if (link.clientGone && link.serverGone) this.links.delete(link);
  }

  private isSettled(): boolean {
    return [...this.links].every((link) => !link.clientGone || link.serverGone);
  }

  private checkSettled(): void {
    if (!this.isSettled()) return;
    for (const resolve of this.settledWaiters.splice(0)) resolve();
  }
}

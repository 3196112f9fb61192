// A connection of its own that LISTENs on one channel (server mode): how the nodes hear each
// other's read-model notices (src/read-model/postgres-relay.ts). It says whether it hears:
// `hearing()` is true only while the connection is up, its LISTEN has been answered, and a
// heartbeat (a statement on the same connection) came back within the last HEARING_LEASE_MS. A
// link that stops answering without closing is found out that way, within the lease. A connection
// that fails, closes or misses a heartbeat is destroyed and a new one opened; `onListening` runs
// each time LISTEN is answered (notices sent while nobody listened are lost: whoever uses this
// must not trust what it kept from before). The connection is named (`application_name`), so
// whoever needs to know which nodes listen can read it in pg_stat_activity; PostgreSQL itself
// ends it after IDLE_SESSION_MS without a heartbeat (a node cut off, or stuck), so a node that no
// longer hears stops being listed soon after.
import pg from 'pg';
import type { Logger } from '../shared/logger.js';
import { answeredWithin, destroyConnection } from './answered-within.js';

const HEARTBEAT_EVERY_MS = 500;
/** How long after its last answered heartbeat the connection still counts as hearing. */
const HEARING_LEASE_MS = 1_500;
const RECONNECT_AFTER_MS = 250;
/** PostgreSQL ends a listening session that sent nothing for this long (heartbeats come every 500 ms). */
const IDLE_SESSION_MS = 5_000;

export interface ListenerOptions {
  connectionString: string;
  /** A plain lower-case identifier (it is written into LISTEN). */
  channel: string;
  /** Longest wait for the connection and for each statement's answer. */
  timeoutMs: number;
  /** The connection's application_name (at most 63 bytes). */
  name: string;
}

export class NotificationListener {
  private client: pg.Client | null = null;
  private listening = false;
  private lastHeard = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly options: ListenerOptions,
    private readonly onNotification: (payload: string) => void,
    private readonly onListening: () => void,
    private readonly log: Logger,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) throw new Error(`not a plain channel name: ${options.channel}`);
  }

  start(): void {
    void this.connect();
  }

  hearing(): boolean {
    return this.listening && Date.now() - this.lastHeard < HEARING_LEASE_MS;
  }

  /** Sends a notification on the channel from this connection (no pool involved). */
  async notify(payload: string): Promise<void> {
    const client = this.client;
    if (!client || !this.listening) throw new Error('the notification listener is not connected');
    await this.answered(client, () => client.query('select pg_notify($1, $2)', [this.options.channel, payload]));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    if (client) destroyConnection(client);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const { connectionString, channel, timeoutMs, name } = this.options;
    const client = new pg.Client({
      connectionString,
      connectionTimeoutMillis: timeoutMs,
      keepAlive: true,
      application_name: name,
      options: `-c idle_session_timeout=${IDLE_SESSION_MS}`,
    });
    this.client = client;
    client.on('error', (err) => this.drop(client, err));
    client.on('end', () => this.drop(client, new Error('connection closed')));
    client.on('notification', (message) => {
      if (client === this.client && message.channel === channel && message.payload) this.onNotification(message.payload);
    });
    try {
      await client.connect();
      await this.answered(client, () => client.query(`LISTEN ${channel}`));
      if (client !== this.client) return;
      this.lastHeard = Date.now();
      this.listening = true;
      this.onListening();
      this.schedule(client);
    } catch (err) {
      this.drop(client, err as Error);
    }
  }

  private schedule(client: pg.Client): void {
    this.timer = setTimeout(() => void this.beat(client), HEARTBEAT_EVERY_MS);
    this.timer.unref();
  }

  private async beat(client: pg.Client): Promise<void> {
    try {
      await this.answered(client, () => client.query('select 1'));
      if (client !== this.client) return;
      this.lastHeard = Date.now();
      this.schedule(client);
    } catch (err) {
      this.drop(client, err as Error);
    }
  }

  private answered<T>(client: pg.Client, send: () => Promise<T>): Promise<T> {
    return answeredWithin(this.options.timeoutMs, send, () => destroyConnection(client), 'the notification listener');
  }

  /** Gives the connection up (once) and opens another shortly. */
  private drop(client: pg.Client, err: Error): void {
    if (client !== this.client) return;
    const wasListening = this.listening;
    this.client = null;
    this.listening = false;
    if (this.timer) clearTimeout(this.timer);
    destroyConnection(client);
    if (this.closed) return;
    // Said once when the link goes, not at every try to bring it back.
    if (wasListening) this.log.warn({ err: err.message }, 'read-model listener lost its PostgreSQL connection; caches are not trusted until it listens again');
    this.timer = setTimeout(() => void this.connect(), RECONNECT_AFTER_MS);
    this.timer.unref();
  }
}

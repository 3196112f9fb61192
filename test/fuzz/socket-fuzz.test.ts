// Fuzzes the Socket.IO API of the served AsyncAPI document (GET /api/v1/asyncapi.json, built from
// realtime/contract.ts), over websocket and long-polling: every client event of every namespace
// with malformed payloads (schema-shaped and broken in places, wrong types, missing fields, huge
// strings, nested junk, non-objects, binary, no payload, extra arguments, no ack callback),
// events no namespace has, packets no client library sends, floods, and clients that go away at
// every step of the handshake and of an event. Must hold (CONTRACT §19): nothing crashes (the
// node runs in this process: an uncaught exception or unhandled rejection is recorded), every
// ack is `{ok:true…}` or `{ok:false, error_code, message}` with a client error code, and
// afterwards the node still serves HTTP (no 5xx) and sockets.
//
//   FUZZ_SEED         fast-check seed (default fixed, printed)
//   FUZZ_SOCKET_RUNS  cases per client event (default 30; raw junk and drops get the same count per namespace)
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent } from '../sns/fixtures.js';
import { RawEngine, pause } from '../realtime/raw-engine.js';
import { watchForCrashes } from '../realtime/crashes.js';
import type { KnownValues } from './arbitraries.js';
import { dropCase, emitCase, junkPacket, socketApi, type DropCase, type EmitCase, type SocketEvent } from './socket-cases.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_SOCKET_RUNS ?? 30);
/** Larger than this, the server may close the connection instead of answering (maxHttpBufferSize is 64 KiB). */
const PACKET_LIMIT = 64 * 1024;
const ACK_TIMEOUT_MS = 5_000;
const ERROR_CODE = /^[a-z_]+\.error\.[a-z_]+$/;
/** Codes that would be the server's fault here (no outage is staged). */
const SERVER_FAULTS = new Set(['server.error.internal', 'service.error.unavailable']);

// The general limit is raised so that the floods reach the handlers (the limit itself is
// test/realtime/socket-limits.test.ts's subject).
const booted = useTestServer({ RATE_LIMIT_SCALE: '10000' });
const crashes = watchForCrashes();

let server: TestServer;
/** Sends the well-formed events (through socket.io-client). */
let user: TestUser;
/** Sends raw junk and goes away mid-handshake (its connections come and go). */
let raider: TestUser;
let namespaces: string[] = [];
let events: SocketEvent[] = [];
let known: KnownValues;
const codes = new Map<string, number>();
const problems: string[] = [];

beforeAll(async () => {
  server = booted.current;
  user = await registerAndLogin(server);
  raider = await registerAndLogin(server);
  const other = await registerAndLogin(server);
  const contentId = await createContent(server, other);
  const room = (await user.api.post('/sns/api/v1/chat/rooms', { memberIds: [other.userId, raider.userId], name: 'fuzz' })).body.data;
  const message = (await user.api.post('/sns/api/v1/chat/messages', { roomId: room.roomId, msg: 'hello' })).body.data;
  await user.api.post(`/auth/api/v1/users/${other.userId}/follow`, undefined, { headers: { 'x-user-id': user.userId } });
  known = {
    ids: [contentId, room.roomId, message._id, user.userId, other.userId],
    usernames: [user.username, other.username],
    phones: [user.phone],
  };
  ({ namespaces, events } = socketApi((await new ApiClient(server.url).get('/api/v1/asyncapi.json')).body));
}, 120_000);
afterAll(() => {
  crashes.stop();
  for (const socket of pool.values()) socket.close();
});

/** What is wrong with an ack, or null. */
function checkAck(ack: any): string | null {
  if (ack?.ok === true) return null;
  if (ack?.ok !== false) return `ack is neither ok:true nor ok:false: ${JSON.stringify(ack)?.slice(0, 300)}`;
  if (typeof ack.error_code !== 'string' || !ERROR_CODE.test(ack.error_code)) return `ack error_code ${JSON.stringify(ack.error_code)}`;
  if (SERVER_FAULTS.has(ack.error_code)) return `ack ${ack.error_code}: ${ack.message}`;
  if (typeof ack.message !== 'string') return 'ack without a message';
  codes.set(ack.error_code, (codes.get(ack.error_code) ?? 0) + 1);
  return null;
}

// ---- Well-formed clients, malformed events ----------------------------------------------------

const pool = new Map<string, Socket>();

/** A connected socket of `user` on `namespace` over `transport`, made again when the last one was dropped. */
async function pooled(namespace: string, transport: EmitCase['transport']): Promise<Socket> {
  const key = `${namespace} ${transport}`;
  const current = pool.get(key);
  if (current?.connected) return current;
  current?.close();
  const socket = io(server.url + namespace, { transports: [transport], auth: { token: user.token }, forceNew: true, reconnection: false });
  pool.set(key, socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

/** The ack, or the reason the socket was dropped before it came. */
function ackOrDrop(socket: Socket, event: string, args: unknown[]): Promise<{ ack?: unknown; dropped?: string }> {
  return new Promise((resolve) => {
    const onDrop = (reason: string) => resolve({ dropped: reason });
    socket.once('disconnect', onDrop);
    socket.timeout(ACK_TIMEOUT_MS).emit(event, ...args, (err: Error | null, ack: unknown) => {
      socket.off('disconnect', onDrop);
      resolve(err ? { dropped: `no ack within ${ACK_TIMEOUT_MS} ms` } : { ack });
    });
  });
}

function describeCase(event: SocketEvent | { namespace: string; event: string }, c: unknown): string {
  const text = JSON.stringify(c, (_k, v) => (typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…(${v.length})` : v));
  return `${event.namespace} ${event.event} ${text?.slice(0, 600)}`;
}

/** Bytes on the wire, roughly (Socket.IO writes the arguments as JSON). */
const wireSize = (args: unknown[]): number => Buffer.byteLength(JSON.stringify(args) ?? '');

async function runEmit(event: SocketEvent | { namespace: string; event: string }, c: EmitCase): Promise<void> {
  const socket = await pooled(event.namespace, c.transport);
  let outcome: { ack?: unknown; dropped?: string };
  if (c.ack) {
    outcome = await ackOrDrop(socket, event.event, c.args);
  } else {
    // Nothing comes back: the answer to an unknown event sent after it says it was handled.
    socket.emit(event.event, ...c.args);
    outcome = await ackOrDrop(socket, 'fuzz:probe', []);
  }
  // A packet over maxHttpBufferSize closes the connection: that is the expected answer to it.
  const tooLarge = wireSize(c.args) + 100 > PACKET_LIMIT;
  let problem: string | null;
  if (outcome.dropped !== undefined) problem = tooLarge ? null : `dropped (${outcome.dropped}) on a ${wireSize(c.args)}-byte packet`;
  else problem = checkAck(outcome.ack);
  if (problem) throw new Error(`${problem}\n  case: ${describeCase(event, c)}`);
}

async function property<T>(name: string, arbitrary: fc.Arbitrary<T>, run: (value: T) => Promise<void>, numRuns = RUNS): Promise<void> {
  const result = await fc.check(fc.asyncProperty(arbitrary, run), { seed: SEED, numRuns, endOnFailure: true });
  if (result.failed) {
    const e = result.errorInstance as Error;
    problems.push(`${name}: ${e?.message ?? String(e)}\n  replay: FUZZ_SEED=${result.seed} (path ${result.counterexamplePath})`);
  }
}

// ---- Raw clients ------------------------------------------------------------------------------

/** Every ack a raw client received must be valid too. */
function checkRawAcks(engine: RawEngine): string | null {
  for (const packet of engine.packets()) {
    const m = /^43[^,[]*,?\d+(\[.*)$/s.exec(packet);
    if (!m) continue;
    const problem = checkAck((JSON.parse(m[1]) as unknown[])[0]);
    if (problem) return `${problem} (packet ${packet.slice(0, 200)})`;
  }
  return null;
}

/** Sends junk on a raw connection (connected to `namespace` first), then makes sure the server got through it. */
async function runJunk(namespace: string, junk: (string | Buffer)[]): Promise<void> {
  const engine = await RawEngine.open(server.url);
  try {
    engine.connect(namespace, { token: raider.token });
    await engine.connected(namespace);
    for (const packet of junk) engine.send(packet);
    // An unknown event with an ack: its answer comes after the junk was handled (or the server closed).
    engine.send(`42${namespace},424242["fuzz:probe"]`);
    await Promise.race([engine.next((p) => p.startsWith(`43${namespace},424242`), ACK_TIMEOUT_MS), engine.closed]).catch(() => undefined);
    const problem = checkRawAcks(engine);
    if (problem) throw new Error(`${problem}\n  junk: ${JSON.stringify(junk.map((j) => (typeof j === 'string' ? j.slice(0, 200) : '<binary>')))}`);
  } finally {
    engine.drop();
  }
}

async function runDrop(c: DropCase, emit: { event: string; args: unknown[] } | null): Promise<void> {
  const wait = () => (c.delayMs ? pause(c.delayMs) : Promise.resolve());
  if (c.how === 'polling') return runPollingDrop(c, emit, wait);
  if (c.step === 'upgrade') {
    const ws = RawEngine.start(server.url);
    await wait();
    ws.terminate();
    return;
  }
  const engine = await RawEngine.open(server.url);
  if (c.step !== 'open') {
    engine.connect(c.namespace, { token: raider.token });
    if (c.step !== 'connect') {
      await engine.connected(c.namespace).catch(() => undefined);
      if (c.step === 'event' && emit) engine.emit(c.namespace, emit.event, emit.args);
    }
  }
  await wait();
  engine.drop(c.how);
}

/** The same steps with socket.io-client over long-polling: its transport closed at that step. */
async function runPollingDrop(c: DropCase, emit: { event: string; args: unknown[] } | null, wait: () => Promise<void>): Promise<void> {
  const socket = io(server.url + c.namespace, {
    transports: ['polling'],
    auth: { token: raider.token },
    forceNew: true,
    reconnection: false,
    autoConnect: false,
  });
  const opened = new Promise<void>((resolve) => socket.io.once('open', () => resolve()));
  const connected = new Promise<void>((resolve) => (socket.once('connect', () => resolve()), socket.once('connect_error', () => resolve())));
  socket.connect();
  if (c.step !== 'upgrade') await opened; // 'upgrade' here: closed before the open packet is read
  if (c.step === 'connected' || c.step === 'event') await connected;
  if (c.step === 'event' && emit) socket.emit(emit.event, ...emit.args, () => undefined);
  await wait();
  socket.io.engine?.close();
  socket.close();
}

// ---- The fuzz ---------------------------------------------------------------------------------

describe('Socket.IO fuzz (AsyncAPI)', () => {
  it('survives malformed events, junk packets, floods and drops at every step, with valid acks only', async () => {
    expect(namespaces.length).toBeGreaterThanOrEqual(5);
    expect(events.length).toBeGreaterThan(0);
    const started = Date.now();
    let sent = 0;

    // 1. Every client event, every kind of malformed call.
    for (const event of events) {
      await property(`${event.namespace} ${event.event}`, emitCase(event.payload, known), async (c) => {
        sent++;
        await runEmit(event, c);
      });
    }
    // 2. Events the namespace does not have (the only ones /notifications and /processing can get).
    for (const namespace of namespaces) {
      const unknown = { namespace, event: 'fuzz:unknown', payload: {} };
      await property(
        `${namespace} unknown events`,
        fc.tuple(fc.constantFrom('fuzz:unknown', 'message:send', 'content:subscribe', 'video:cancel', ''), emitCase({}, known)),
        async ([name, c]) => {
          sent++;
          await runEmit({ ...unknown, event: name }, c);
        },
        Math.ceil(RUNS / 3),
      );
    }
    // 3. Packets no client library sends.
    for (const namespace of namespaces) {
      await property(
        `${namespace} junk packets`,
        fc.array(junkPacket(namespaces), { minLength: 1, maxLength: 5 }),
        async (junk) => {
          sent += junk.length;
          await runJunk(namespace, junk);
        },
        Math.ceil(RUNS / 2),
      );
    }
    // 4. Floods: 200 events at once on one socket (each of a size the server takes), each answered validly.
    for (const namespace of namespaces) {
      const ofNamespace = events.filter((e) => e.namespace === namespace);
      const socket = await pooled(namespace, 'websocket');
      const flood = Array.from({ length: 200 }, (_, i) => {
        const target = ofNamespace.length ? ofNamespace[i % ofNamespace.length] : { namespace, event: 'fuzz:unknown', payload: {} };
        const [args] = fc.sample(
          emitCase(target.payload, known).filter((c) => wireSize(c.args) < PACKET_LIMIT / 8),
          { seed: SEED + i, numRuns: 1 },
        );
        return ackOrDrop(socket, target.event, args.args).then(({ ack, dropped }) => (dropped ? `${target.event}: ${dropped}` : checkAck(ack)));
      });
      sent += flood.length;
      for (const problem of await Promise.all(flood)) if (problem) problems.push(`flood on ${namespace}: ${problem}`);
    }
    // A flood of CONNECTs on one connection: one socket per namespace, the rest refused.
    for (const namespace of namespaces) {
      const engine = await RawEngine.open(server.url);
      for (let i = 0; i < 50; i++) engine.connect(namespace, { token: raider.token });
      const answered = () => engine.packets().filter((p) => p.startsWith(`40${namespace},`) || p.startsWith(`44${namespace},`)).length;
      for (let i = 0; i < 250 && answered() < 50; i++) await Promise.race([engine.closed, pause(20)]);
      const accepted = engine.packets().filter((p) => p.startsWith(`40${namespace},`)).length;
      if (accepted !== 1) problems.push(`CONNECT flood on ${namespace}: ${accepted} sockets accepted on one connection`);
      sent += 50;
      engine.drop();
    }
    // 5. Going away at every step, with and without an event in flight.
    await property(
      'drops',
      fc.tuple(dropCase(namespaces), fc.nat()),
      async ([c, pick]) => {
        const ofNamespace = events.filter((e) => e.namespace === c.namespace);
        const event = ofNamespace[pick % Math.max(1, ofNamespace.length)];
        const args = event ? [fc.sample(emitCase(event.payload, known), { seed: pick, numRuns: 1 })[0].args[0]] : [];
        sent++;
        await runDrop(c, event ? { event: event.event, args } : null);
      },
      RUNS * 3,
    );

    await pause(500); // what the server still does for the last cases runs now
    problems.push(...crashes.take());
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `socket fuzz: ${sent} cases over ${events.length} client events and ${namespaces.length} namespaces in ${seconds} s; seed ${SEED}, ${RUNS} runs; ${problems.length} problem(s)`,
    );
    if (process.env.FUZZ_STATS === '1')
      console.log(
        [...codes]
          .sort()
          .map(([c, n]) => `${c}×${n}`)
          .join(' '),
      );
    if (problems.length) console.log(problems.join('\n\n'));
    expect(problems, problems.join('\n\n')).toEqual([]);
  }, 300_000);

  it('still serves HTTP (no 5xx) and sockets afterwards', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    for (const path of ['/auth/api/v1/user/me', '/sns/api/v1/chat/rooms', '/api/v1/asyncapi.json', `/sns/api/v1/comments/${known.ids[0]}`]) {
      const res = await user.api.get(path);
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
    }
    for (const namespace of namespaces) {
      const socket = io(server.url + namespace, { transports: ['websocket'], auth: { token: raider.token }, forceNew: true, reconnection: false });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      const ack = await socket.timeout(ACK_TIMEOUT_MS).emitWithAck('fuzz:probe', {});
      expect(ack).toEqual({ ok: false, error_code: 'realtime.error.unknown_event', message: expect.any(String) });
      socket.close();
    }
  });
});

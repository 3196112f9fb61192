// CONTRACT §25: does a node's realtime work follow its own sockets, or the cluster's traffic?
// Three server-mode nodes (child processes, one Redis prefix per adapter); every member of the
// busy room is connected to node A, idle clients (in no busy room) to B and C. Each node's CPU
// (user + system, from /proc) is read over an idle window, then over a window of room traffic
// (messages sent through A at a fixed rate). Run once per adapter, `rooms` (the default) and
// `pubsub` side by side. Every delivery is counted by the bench's own clients.
//
//   BENCH_DATABASE_URL=… BENCH_REDIS_URL=… npx tsx bench/realtime-nodes.ts
// Knobs: BENCH_MEMBERS (100), BENCH_IDLE (100 per idle node), BENCH_RATE (200 msg/s),
// BENCH_SECONDS (5 of traffic, 3 idle), BENCH_ADAPTERS (rooms,pubsub).
import { io, type Socket } from 'socket.io-client';
import { cpuSeconds, scratchDatabase, seed, startNodes, stopNode, type NodeProcess, type RealtimeAdapter } from './socket-cluster.js';
import { sleep } from './bench-helpers.js';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100);
const IDLE = Number(process.env.BENCH_IDLE ?? 100);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const IDLE_SECONDS = 3;
const ADAPTERS = (process.env.BENCH_ADAPTERS ?? 'rooms,pubsub').split(',') as RealtimeAdapter[];

async function connectAll(url: string, tokens: string[]): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < tokens.length; i += 25) {
    const batch = tokens.slice(i, i + 25).map(
      (token) =>
        new Promise<Socket>((resolve, reject) => {
          const s = io(url + '/chat', { transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
          s.once('connect', () => resolve(s));
          s.once('connect_error', reject);
        }),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

async function run(adapter: RealtimeAdapter, databaseUrl: string, tokens: string[], roomId: string) {
  const nodes: NodeProcess[] = await startNodes(3, databaseUrl, adapter);
  const sockets: Socket[] = [];
  try {
    const [a, b, c] = nodes;
    const members = await connectAll(a.socketUrl, tokens.slice(1, MEMBERS + 1));
    let delivered = 0;
    for (const s of members) s.on('message:new', () => delivered++);
    sockets.push(...members);
    sockets.push(...(await connectAll(b.socketUrl, tokens.slice(MEMBERS + 1, MEMBERS + 1 + IDLE))));
    sockets.push(...(await connectAll(c.socketUrl, tokens.slice(MEMBERS + 1 + IDLE, MEMBERS + 1 + 2 * IDLE))));
    const sender = (await connectAll(a.socketUrl, [tokens[0]]))[0];
    sockets.push(sender);
    await sleep(1000);

    const pids = nodes.map((n) => n.child.pid!);
    const idle0 = pids.map(cpuSeconds);
    await sleep(IDLE_SECONDS * 1000);
    const idle = pids.map((pid, i) => ((cpuSeconds(pid) - idle0[i]) * SECONDS) / IDLE_SECONDS); // scaled to the traffic window

    const messages = RATE * SECONDS;
    const busy0 = pids.map(cpuSeconds);
    const start = Date.now();
    for (let i = 0; i < messages; i++) {
      const due = start + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      sender.emit('message:send', { roomId, msg: `bench ${i}` });
    }
    const busyWindow = (Date.now() - start) / 1000;
    const busy = pids.map((pid, i) => ((cpuSeconds(pid) - busy0[i]) * SECONDS) / busyWindow);
    const expected = messages * MEMBERS;
    const deadline = Date.now() + 20_000;
    while (delivered < expected && Date.now() < deadline) await sleep(200);
    return { adapter, idle, busy, delivered, expected };
  } finally {
    for (const s of sockets) s.close();
    for (const n of nodes) await stopNode(n);
  }
}

const database = await scratchDatabase();
try {
  const seeded = await seed(database.url, MEMBERS + 2 * IDLE, MEMBERS);
  console.log(`${MEMBERS} members of one room on A, ${IDLE} idle clients on each of B and C, ${RATE} messages/s through A for ${SECONDS} s`);
  console.log('| `REALTIME_ADAPTER` | A: CPU s, idle → traffic | B | C | B, C above idle | deliveries |');
  console.log('|---|---|---|---|---|---|');
  for (const adapter of ADAPTERS) {
    const r = await run(adapter, database.url, seeded.tokens, seeded.roomId);
    const f = (i: number) => `${r.idle[i].toFixed(2)} → ${r.busy[i].toFixed(2)}`;
    const above = (i: number) => `${(((r.busy[i] - r.idle[i]) / Math.max(r.idle[i], 0.01)) * 100).toFixed(0)} %`;
    console.log(`| ${adapter} | ${f(0)} | ${f(1)} | ${f(2)} | ${above(1)} / ${above(2)} | ${r.delivered.toLocaleString('en')} of ${r.expected.toLocaleString('en')} |`);
  }
} finally {
  await database.drop();
}

// Socket.IO load bench: websocket clients from 4 client processes, 1,000 of them in one chat room;
// one member sends room messages over the socket (`message:send`, the same operation as REST).
// Prints connections per node, resident memory per connection, deliveries per second, p50/p99
// delivery latency, and the service's CPU per delivery (each node's user + system CPU from /proc
// over the traffic, divided by the deliveries the clients counted). Runs once per
// REALTIME_NATIVE_PUBLISH value (BENCH_NATIVE_PUBLISH, `off,on`): room broadcasts written socket
// by socket, then encoded once and published to the room's uWebSockets.js topic; a table compares.
//
// BENCH_MODE=server (default): two service nodes (child processes, a fresh PostgreSQL database on
// BENCH_DATABASE_URL's server + Redis), the clients spread over them.
// BENCH_MODE=embedded: one node on PGlite, no Redis (the in-memory adapter), every client on it.
//
//   npx tsx bench/sockets.ts
// Env: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL
// (redis://127.0.0.1:6379/0), BENCH_CLIENTS (5000), BENCH_MEMBERS (1000), BENCH_MESSAGES (200),
// BENCH_RATE (messages per second, 50), BENCH_WORKERS (4), BENCH_ADAPTER (rooms, server mode),
// BENCH_NATIVE_PUBLISH (off,on), BENCH_NODE_ARGS (extra node flags for the service, e.g. --cpu-prof).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  cpuPerDelivery,
  printFanout,
  runFanout,
  scratchDatabase,
  seed,
  seedEmbedded,
  startEmbeddedNode,
  startNodes,
  stopNode,
  type FanoutOptions,
  type FanoutResult,
  type NodeProcess,
  type RealtimeAdapter,
  type Seeded,
} from './socket-cluster.js';

const env = (name: string, fallback: string) => process.env[name] || fallback;
const options: FanoutOptions = {
  clients: Number(env('BENCH_CLIENTS', '5000')),
  members: Number(env('BENCH_MEMBERS', '1000')),
  messages: Number(env('BENCH_MESSAGES', '200')),
  rate: Number(env('BENCH_RATE', '50')),
  workers: Number(env('BENCH_WORKERS', '4')),
};
const mode = env('BENCH_MODE', 'server');
if (mode !== 'embedded' && mode !== 'server') throw new Error(`BENCH_MODE must be embedded or server, not ${mode}`);
const adapter = env('BENCH_ADAPTER', 'rooms') as RealtimeAdapter;
const publishModes = env('BENCH_NATIVE_PUBLISH', 'off,on').split(',');
const load = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;

/** One run per REALTIME_NATIVE_PUBLISH value, each on fresh nodes; then the comparison. */
async function runEach(start: (settings: Record<string, string>) => Promise<NodeProcess[]>, seeded: Seeded): Promise<void> {
  const results: [string, FanoutResult, string][] = [];
  for (const publish of publishModes) {
    const nodes = await start({ REALTIME_NATIVE_PUBLISH: publish });
    try {
      const result = await runFanout(nodes, seeded, options);
      results.push([publish, result, load()]);
      printFanout(`REALTIME_NATIVE_PUBLISH=${publish}, ${mode} (${load()})`, result);
    } finally {
      await Promise.all(nodes.map(stopNode));
    }
  }
  console.log(
    '\n| `REALTIME_NATIVE_PUBLISH` | deliveries | service CPU s (system; main thread) | µs per delivery | above idle | main thread µs per delivery | p50 ms | p99 ms | load average |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [publish, r, loadAverage] of results) {
    const cpu = r.trafficCpuSeconds.reduce((a, b) => a + b, 0);
    const system = r.trafficSystemSeconds.reduce((a, b) => a + b, 0);
    const main = r.trafficMainThreadSeconds.reduce((a, b) => a + b, 0);
    const per = cpuPerDelivery(r);
    const mainPer = r.deliveries ? ((main / r.deliveries) * 1e6).toFixed(2) : '—';
    console.log(
      `| ${publish} | ${r.deliveries.toLocaleString('en')} of ${r.expected.toLocaleString('en')} | ${cpu.toFixed(2)} (${system.toFixed(2)}; ${main.toFixed(2)}) | ${per.all.toFixed(2)} | ${per.aboveIdle.toFixed(2)} | ${mainPer} | ${r.p50} | ${r.p99} | ${loadAverage.replace('load average ', '')} |`,
    );
  }
}

async function server() {
  const database = await scratchDatabase();
  try {
    console.log(
      `bench: ${options.clients} websocket clients on 2 nodes (${adapter} adapter), ${options.members} in one room, ${options.messages} messages at ${options.rate}/s, ${options.workers} client processes`,
    );
    const seeded = await seed(database.url, options.clients, options.members);
    await runEach((settings) => startNodes(2, database.url, adapter, settings), seeded);
  } finally {
    await database.drop();
  }
}

async function embedded() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-sockets-'));
  try {
    console.log(
      `bench: ${options.clients} websocket clients on 1 embedded node, ${options.members} in one room, ${options.messages} messages at ${options.rate}/s, ${options.workers} client processes`,
    );
    const seeded = await seedEmbedded(dataDir, options.clients, options.members);
    await runEach(async (settings) => [await startEmbeddedNode(dataDir, settings)], seeded);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (mode === 'embedded') await embedded();
else await server();

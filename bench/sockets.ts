// Socket.IO load bench: websocket clients from 4 client processes, 1,000 of them in one chat room;
// one member sends room messages over the socket (`message:send`, the same operation as REST).
// Prints connections per node, resident memory per connection, deliveries per second, p50/p99
// delivery latency, and the service's CPU seconds per delivery (each node's user + system CPU
// from /proc over the traffic, divided by the deliveries the clients counted).
// (Socket.IO runs on the service's uWebSockets.js app, as in production.)
//
// BENCH_MODE=server (default): two service nodes (child processes, a fresh PostgreSQL database on
// BENCH_DATABASE_URL's server + Redis), the clients spread over them.
// BENCH_MODE=embedded: one node on PGlite, no Redis (the in-memory adapter), every client on it.
//
//   npx tsx bench/sockets.ts
// Env: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL
// (redis://127.0.0.1:6379/0), BENCH_CLIENTS (5000), BENCH_MEMBERS (1000), BENCH_MESSAGES (200),
// BENCH_RATE (messages per second, 50), BENCH_WORKERS (4), BENCH_ADAPTER (rooms, server mode),
// BENCH_NODE_ARGS (extra node flags for the service, e.g. --cpu-prof).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  printFanout,
  runFanout,
  scratchDatabase,
  seed,
  seedEmbedded,
  startEmbeddedNode,
  startNodes,
  stopNode,
  type FanoutOptions,
  type RealtimeAdapter,
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
const adapter = env('BENCH_ADAPTER', 'rooms') as RealtimeAdapter;
const load = () => `load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;

async function server() {
  const database = await scratchDatabase();
  try {
    console.log(`bench: ${options.clients} websocket clients on 2 nodes (${adapter} adapter), ${options.members} in one room, ${options.messages} messages at ${options.rate}/s, ${options.workers} client processes`);
    const seeded = await seed(database.url, options.clients, options.members);
    const nodes = await startNodes(2, database.url, adapter);
    try {
      printFanout(`Socket.IO on uWebSockets.js, server mode (${load()})`, await runFanout(nodes, seeded, options));
    } finally {
      await Promise.all(nodes.map(stopNode));
    }
  } finally {
    await database.drop();
  }
}

async function embedded() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-sockets-'));
  try {
    console.log(`bench: ${options.clients} websocket clients on 1 embedded node, ${options.members} in one room, ${options.messages} messages at ${options.rate}/s, ${options.workers} client processes`);
    const seeded = await seedEmbedded(dataDir, options.clients, options.members);
    const node = await startEmbeddedNode(dataDir);
    try {
      printFanout(`Socket.IO on uWebSockets.js, embedded (${load()})`, await runFanout([node], seeded, options));
    } finally {
      await stopNode(node);
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (mode === 'embedded') await embedded();
else if (mode === 'server') await server();
else throw new Error(`BENCH_MODE must be embedded or server, not ${mode}`);

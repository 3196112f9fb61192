// Socket.IO load bench: two service nodes (child processes, server mode: a fresh PostgreSQL
// database on BENCH_DATABASE_URL's server + Redis), 5,000 websocket clients spread over them from
// 4 client processes, 1,000 of them in one chat room; one member sends N room messages over the
// socket (`message:send`, the same operation as REST). Prints connections per node, resident
// memory per connection, deliveries per second and p50/p99 delivery latency. (Socket.IO runs on
// the service's uWebSockets.js app, as in production; the earlier comparison with Node's own http
// server is gone with the code path it needed.)
//
//   npx tsx bench/sockets.ts
// Env: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL
// (redis://127.0.0.1:6379/0), BENCH_CLIENTS (5000), BENCH_MEMBERS (1000), BENCH_MESSAGES (200),
// BENCH_RATE (messages per second, 50), BENCH_WORKERS (4), BENCH_ADAPTER (streams).
import { printFanout, runFanout, scratchDatabase, seed, startNodes, stopNode, type FanoutOptions, type RealtimeAdapter } from './socket-cluster.js';

const env = (name: string, fallback: string) => process.env[name] || fallback;
const options: FanoutOptions = {
  clients: Number(env('BENCH_CLIENTS', '5000')),
  members: Number(env('BENCH_MEMBERS', '1000')),
  messages: Number(env('BENCH_MESSAGES', '200')),
  rate: Number(env('BENCH_RATE', '50')),
  workers: Number(env('BENCH_WORKERS', '4')),
};
const adapter = env('BENCH_ADAPTER', 'streams') as RealtimeAdapter;

async function run(databaseUrl: string, seeded: Awaited<ReturnType<typeof seed>>) {
  const nodes = await startNodes(2, databaseUrl, adapter);
  try {
    return await runFanout(nodes, seeded, options);
  } finally {
    await Promise.all(nodes.map(stopNode));
  }
}

const database = await scratchDatabase();
try {
  console.log(`bench: ${options.clients} websocket clients on 2 nodes (${adapter} adapter), ${options.members} in one room, ${options.messages} messages at ${options.rate}/s, ${options.workers} client processes`);
  const seeded = await seed(database.url, options.clients, options.members);
  printFanout('Socket.IO on uWebSockets.js', await run(database.url, seeded));
} finally {
  await database.drop();
}

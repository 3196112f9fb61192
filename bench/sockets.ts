// Socket.IO load bench: two service nodes (child processes, server mode: a fresh PostgreSQL
// database on BENCH_DATABASE_URL's server + Redis), 5,000 websocket clients spread over them from
// 4 client processes, 1,000 of them in one chat room; one member sends N room messages over the
// socket (`message:send`, the same operation as REST). Prints connections per node, resident
// memory per connection, deliveries per second and p50/p99 delivery latency; then the same run
// with Socket.IO on Node's own http server (bench/socket-http-node.ts), and the ratios.
//
//   npx tsx bench/sockets.ts
// Env: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL
// (redis://127.0.0.1:6379/0), BENCH_CLIENTS (5000), BENCH_MEMBERS (1000), BENCH_MESSAGES (200),
// BENCH_RATE (messages per second, 50), BENCH_WORKERS (4), BENCH_ADAPTER (streams).
import { printFanout, runFanout, scratchDatabase, seed, startNodes, stopNode, type FanoutOptions, type RealtimeAdapter, type Variant } from './socket-cluster.js';

const env = (name: string, fallback: string) => process.env[name] || fallback;
const options: FanoutOptions = {
  clients: Number(env('BENCH_CLIENTS', '5000')),
  members: Number(env('BENCH_MEMBERS', '1000')),
  messages: Number(env('BENCH_MESSAGES', '200')),
  rate: Number(env('BENCH_RATE', '50')),
  workers: Number(env('BENCH_WORKERS', '4')),
};
const adapter = env('BENCH_ADAPTER', 'streams') as RealtimeAdapter;

async function run(variant: Variant, databaseUrl: string, seeded: Awaited<ReturnType<typeof seed>>) {
  const nodes = await startNodes(2, variant, databaseUrl, adapter);
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
  const uws = await run('uWebSockets.js', database.url, seeded);
  printFanout('Socket.IO on uWebSockets.js', uws);
  const nodeHttp = await run('node:http', database.url, seeded);
  printFanout('Socket.IO on node:http', nodeHttp);
  console.log('\n== ratios (uWebSockets.js / node:http)');
  const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  console.log(`RSS per connection        ${(avg(uws.rssPerConnectionKb) / avg(nodeHttp.rssPerConnectionKb)).toFixed(2)}`);
  console.log(`deliveries per second     ${(uws.deliveriesPerSecond / nodeHttp.deliveriesPerSecond).toFixed(2)}`);
  console.log(`p50 latency               ${(uws.p50 / nodeHttp.p50).toFixed(2)}`);
  console.log(`p99 latency               ${(uws.p99 / nodeHttp.p99).toFixed(2)}`);
} finally {
  await database.drop();
}

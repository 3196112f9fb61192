// What connection state recovery across nodes costs: the same room fan-out over two nodes with
// each cross-node adapter (REALTIME_ADAPTER): Redis streams (recovery on any node), plain pub/sub
// and sharded pub/sub (no recovery). Prints deliveries per second and p50/p99 delivery latency
// per adapter, and each against pub/sub.
//
//   npx tsx bench/adapter-compare.ts
// Env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_CLIENTS (2000), BENCH_MEMBERS (1000),
// BENCH_MESSAGES (200), BENCH_RATE (messages per second, 50), BENCH_WORKERS (4),
// BENCH_ADAPTERS (pubsub,streams,sharded).
import {
  printFanout,
  runFanout,
  scratchDatabase,
  seed,
  startNodes,
  stopNode,
  type FanoutOptions,
  type FanoutResult,
  type RealtimeAdapter,
} from './socket-cluster.js';

const env = (name: string, fallback: string) => process.env[name] || fallback;
const options: FanoutOptions = {
  clients: Number(env('BENCH_CLIENTS', '2000')),
  members: Number(env('BENCH_MEMBERS', '1000')),
  messages: Number(env('BENCH_MESSAGES', '200')),
  rate: Number(env('BENCH_RATE', '50')),
  workers: Number(env('BENCH_WORKERS', '4')),
};
const adapters = env('BENCH_ADAPTERS', 'pubsub,streams,sharded').split(',') as RealtimeAdapter[];

const database = await scratchDatabase();
try {
  console.log(
    `adapter compare: ${options.clients} websocket clients on 2 nodes, ${options.members} in one room, ${options.messages} messages at ${options.rate}/s`,
  );
  const seeded = await seed(database.url, options.clients, options.members);
  const results = new Map<RealtimeAdapter, FanoutResult>();
  for (const adapter of adapters) {
    const nodes = await startNodes(2, database.url, adapter);
    try {
      results.set(adapter, await runFanout(nodes, seeded, options));
    } finally {
      await Promise.all(nodes.map(stopNode));
    }
    printFanout(`${adapter} adapter`, results.get(adapter)!);
  }
  const base = results.get('pubsub');
  console.log('\n| adapter | deliveries | deliveries/s | p50 ms | p99 ms | deliveries/s vs pubsub |');
  console.log('|---|---|---|---|---|---|');
  for (const [adapter, r] of results) {
    const ratio = base ? (r.deliveriesPerSecond / base.deliveriesPerSecond).toFixed(2) : '—';
    console.log(`| ${adapter} | ${r.deliveries} of ${r.expected} | ${Math.round(r.deliveriesPerSecond)} | ${r.p50} | ${r.p99} | ${ratio} |`);
  }
} finally {
  await database.drop();
}

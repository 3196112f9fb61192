// Does adding nodes add capacity for one busy room? The same room (BENCH_MEMBERS members spread
// evenly over the nodes) gets messages offered faster than one node can deliver, on 1, 2 and 3
// nodes, for each adapter in BENCH_ADAPTERS. Prints deliveries per second and p50/p99 latency.
// With the streams and pub/sub adapters every node receives every room event; with the sharded
// adapter only nodes with members subscribe to the room's channel (here all of them have some).
// On a machine with fewer cores than nodes + Redis + clients the figures show contention, not
// scaling: run it where each node has its own core.
//
//   npx tsx bench/room-scaling.ts
// Env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_MEMBERS (1500), BENCH_MESSAGES (300),
// BENCH_RATE (messages per second offered, 150), BENCH_WORKERS (3), BENCH_NODES (1,2,3),
// BENCH_ADAPTERS (streams,sharded).
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
const members = Number(env('BENCH_MEMBERS', '1500'));
const options: FanoutOptions = {
  clients: members,
  members,
  messages: Number(env('BENCH_MESSAGES', '300')),
  rate: Number(env('BENCH_RATE', '150')),
  workers: Number(env('BENCH_WORKERS', '3')),
};
const nodeCounts = env('BENCH_NODES', '1,2,3').split(',').map(Number);
const adapters = env('BENCH_ADAPTERS', 'streams,sharded').split(',') as RealtimeAdapter[];

const database = await scratchDatabase();
try {
  console.log(
    `room scaling: one room of ${members} members over ${nodeCounts.join(' / ')} nodes, ${options.messages} messages offered at ${options.rate}/s (${options.rate * members} deliveries/s offered)`,
  );
  const seeded = await seed(database.url, options.clients, options.members);
  const rows: { adapter: RealtimeAdapter; nodes: number; r: FanoutResult }[] = [];
  for (const adapter of adapters) {
    for (const count of nodeCounts) {
      const nodes = await startNodes(count, database.url, adapter);
      try {
        const r = await runFanout(nodes, seeded, options);
        rows.push({ adapter, nodes: count, r });
        printFanout(`${adapter}, ${count} node(s)`, r);
      } finally {
        await Promise.all(nodes.map(stopNode));
      }
    }
  }
  console.log('\n| adapter | nodes | deliveries | deliveries/s | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const { adapter, nodes, r } of rows)
    console.log(`| ${adapter} | ${nodes} | ${r.deliveries} of ${r.expected} | ${Math.round(r.deliveriesPerSecond)} | ${r.p50} | ${r.p99} |`);
} finally {
  await database.drop();
}

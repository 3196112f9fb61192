// CONTRACT §25: does a node's realtime work follow its own sockets, or the cluster's traffic?
// Three server-mode nodes (child processes, one Redis prefix per adapter); every member of the
// busy room is connected to node A, idle clients (in no busy room) to B and C. Each node's CPU
// (user + system, from /proc) is read over an idle window, then over a window of room traffic
// (messages sent through A at a fixed rate). Run once per adapter, `rooms` (the default) and
// `pubsub` side by side. Every delivery is counted by the bench's own clients.
//
//   BENCH_DATABASE_URL=… BENCH_REDIS_URL=… npx tsx bench/realtime-nodes.ts
// Knobs: BENCH_MEMBERS (100), BENCH_ROOMS (1: the busy rooms the members are spread over, the
// sender in each; messages go to them in turn), BENCH_IDLE (100 per idle node), BENCH_RATE
// (200 msg/s), BENCH_SECONDS (5 of traffic, as many idle before it), BENCH_ADAPTERS (rooms,pubsub).
// Issue 22's shape: BENCH_MEMBERS=1000 BENCH_ROOMS=20 BENCH_IDLE=200 BENCH_RATE=200 BENCH_SECONDS=20.
import { io, type Socket } from 'socket.io-client';
import { cpuSeconds, cpuTimes, scratchDatabase, seed, startNodes, stopNode, type NodeProcess, type RealtimeAdapter } from './socket-cluster.js';
import pg from 'pg';
import { sleep } from './bench-helpers.js';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100);
const IDLE = Number(process.env.BENCH_IDLE ?? 100);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const ROOMS = Number(process.env.BENCH_ROOMS ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
// As long as the traffic window: a shorter one misses the periodic work (heartbeats, sweeps, pings)
// the traffic window holds, and scaling it up makes an idle node look busier under traffic.
const IDLE_SECONDS = SECONDS;
const ADAPTERS = (process.env.BENCH_ADAPTERS ?? 'rooms,pubsub').split(',') as RealtimeAdapter[];

/** Cluster messages a node has received so far (its /metrics: socketio_adapter_received_total; null with an adapter that does not count them). */
async function receivedSoFar(node: NodeProcess): Promise<number | null> {
  const text = await (await fetch(`${node.socketUrl}/metrics`)).text();
  const found = /^socketio_adapter_received_total (\d+)/m.exec(text);
  return found ? Number(found[1]) : null;
}

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

/** The busy rooms: each with the sender (user 0) and its share of users 1..MEMBERS; their ids and member counts (without the sender). */
async function busyRooms(databaseUrl: string, seededRoom: string): Promise<{ id: string; members: number }[]> {
  if (ROOMS === 1) return [{ id: seededRoom, members: MEMBERS }];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Only the new rooms are busy: the seeded room loses its members.
    await client.query('delete from chat_room_members where room_id = $1', [seededRoom]);
    const rooms: { id: string; members: number }[] = [];
    for (let r = 0; r < ROOMS; r++) {
      const { rows } = await client.query<{ id: string }>("insert into chat_rooms (id, name) values (gen_random_uuid(), 'busy ' || $1::text) returning id", [
        String(r),
      ]);
      const members = await client.query(
        `insert into chat_room_members (room_id, user_id)
         select $1::uuid, id from users where username like 'bench%'
           and (substring(username from 6)::int = 0 or (substring(username from 6)::int between 1 and $2::int and substring(username from 6)::int % $3::int = $4::int))`,
        [rows[0].id, MEMBERS, ROOMS, r],
      );
      rooms.push({ id: rows[0].id, members: (members.rowCount ?? 1) - 1 });
    }
    return rooms;
  } finally {
    await client.end();
  }
}

async function run(adapter: RealtimeAdapter, databaseUrl: string, tokens: string[], rooms: { id: string; members: number }[]) {
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
    const received0 = await Promise.all(nodes.map(receivedSoFar));
    const busy0 = pids.map(cpuSeconds);
    const system0 = pids.map((pid) => cpuTimes(pid).system);
    const start = Date.now();
    for (let i = 0; i < messages; i++) {
      const due = start + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      sender.emit('message:send', { roomId: rooms[i % rooms.length].id, msg: `bench ${i}` });
    }
    const busyWindow = (Date.now() - start) / 1000;
    const busy = pids.map((pid, i) => ((cpuSeconds(pid) - busy0[i]) * SECONDS) / busyWindow);
    const system = pids.map((pid, i) => ((cpuTimes(pid).system - system0[i]) * SECONDS) / busyWindow);
    const received = (await Promise.all(nodes.map(receivedSoFar))).map((r, i) => (r === null || received0[i] === null ? null : r - received0[i]));
    let expected = 0;
    for (let i = 0; i < messages; i++) expected += rooms[i % rooms.length].members;
    const deadline = Date.now() + 20_000;
    while (delivered < expected && Date.now() < deadline) await sleep(200);
    return { adapter, idle, busy, system, delivered, expected, received };
  } finally {
    for (const s of sockets) s.close();
    for (const n of nodes) await stopNode(n);
  }
}

const database = await scratchDatabase();
try {
  const seeded = await seed(database.url, MEMBERS + 2 * IDLE, MEMBERS);
  const rooms = await busyRooms(database.url, seeded.roomId);
  console.log(`${MEMBERS} members of ${ROOMS} busy room(s) on A, ${IDLE} idle clients on each of B and C, ${RATE} messages/s through A for ${SECONDS} s`);
  console.log(
    '| `REALTIME_ADAPTER` | A: CPU s, idle → traffic | B | C | B, C above idle | cluster messages received by A / B / C during the traffic | deliveries |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const adapter of ADAPTERS) {
    const r = await run(adapter, database.url, seeded.tokens, rooms);
    // The traffic's figure with its kernel (system) part in brackets.
    const f = (i: number) => `${r.idle[i].toFixed(2)} → ${r.busy[i].toFixed(2)} (${r.system[i].toFixed(2)} sys)`;
    const above = (i: number) => `${(((r.busy[i] - r.idle[i]) / Math.max(r.idle[i], 0.01)) * 100).toFixed(0)} %`;
    // Only the rooms adapter counts what it receives.
    const received = adapter === 'rooms' ? r.received.map((n) => (n === null ? 'n/a' : n.toLocaleString('en'))).join(' / ') : 'not counted';
    console.log(
      `| ${adapter} | ${f(0)} | ${f(1)} | ${f(2)} | ${above(1)} / ${above(2)} | ${received} | ${r.delivered.toLocaleString('en')} of ${r.expected.toLocaleString('en')} |`,
    );
  }
} finally {
  await database.drop();
}

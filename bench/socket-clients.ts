// A bench client process: opens its share of websocket clients on /chat, joins the room for the
// members, and records the delivery latency of every `message:new` (the message text carries
// the send time; all processes share one clock). Driven by bench/sockets.ts over IPC.
import { io, type Socket } from 'socket.io-client';

interface Job {
  clients: { url: string; token: string; member: boolean }[];
  roomId: string;
  concurrency: number;
}

const sockets: Socket[] = [];
const latencies: number[] = [];
let lastAt = 0;

function open(c: Job['clients'][number], roomId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = io(c.url + '/chat', { transports: ['websocket'], auth: { token: c.token }, reconnection: false, forceNew: true, timeout: 60_000 });
    sockets.push(s);
    s.on('message:new', (m: { msg: string }) => {
      const sentAt = Number(m.msg.split(':')[2]);
      if (!sentAt) return;
      lastAt = Date.now();
      latencies.push(lastAt - sentAt);
    });
    s.once('connect_error', reject);
    s.once('connect', () => {
      if (!c.member) return resolve();
      s.timeout(60_000)
        .emitWithAck('room:join', { roomId })
        .then((ack: { ok: boolean }) => (ack.ok ? resolve() : reject(new Error('join refused'))), reject);
    });
  });
}

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a rejection crashes this child, which is how the bench reports it
process.on('message', async (msg: { type: string; job?: Job }) => {
  if (msg.type === 'connect' && msg.job) {
    const { clients, roomId, concurrency } = msg.job;
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < clients.length) {
          const c = clients[next++];
          await open(c, roomId).catch(() => failed++);
        }
      }),
    );
    process.send!({ type: 'connected', connected: sockets.filter((s) => s.connected).length, failed });
  } else if (msg.type === 'report') {
    process.send!({ type: 'report', latencies, lastAt });
  } else if (msg.type === 'close') {
    for (const s of sockets) s.close();
    process.exit(0);
  }
});

// One service node whose Socket.IO runs on Node's own `http` server instead of uWebSockets.js
// (REST stays on uWS; only bench/sockets.ts uses this, to compare the two). Listens for
// Socket.IO on SOCKET_PORT.
import http from 'node:http';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { attachRealtimeToHttpServer } from '../realtime/server.js';

const config = loadConfig();
const service = await startService(config);
await service.realtime.close();
const server = http.createServer();
const realtime = await attachRealtimeToHttpServer(server, service.app, service.services, service.rateLimits);
server.listen(Number(process.env.SOCKET_PORT), '127.0.0.1', () => process.send?.({ ready: true }));
const stop = async () => {
  await realtime.close();
  await service.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// Real socket.io-client connections to /feed, with the language given in the handshake.
import { io, type Socket } from 'socket.io-client';
import type { Transport } from '../realtime/socket-client.js';

const open: Socket[] = [];

export function connectFeed(baseUrl: string, token: string, transport: Transport, language?: string): Promise<Socket> {
  const socket = io(`${baseUrl}/feed`, {
    transports: [transport],
    auth: language ? { token, language } : { token },
    reconnection: false,
    forceNew: true,
    timeout: 10_000,
  });
  open.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

export function closeFeedSockets(): void {
  for (const s of open.splice(0)) s.close();
}

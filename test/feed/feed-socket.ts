// Real socket.io-client connections to /feed, with the language given in the handshake.
import type { Socket } from 'socket.io-client';
import { connect, type Transport } from '../realtime/socket-client.js';

export function connectFeed(baseUrl: string, token: string, transport: Transport, language?: string): Promise<Socket> {
  return connect(baseUrl, '/feed', token, transport, language ? { language } : {});
}

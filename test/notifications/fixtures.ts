// Shared helpers of the notification tests: the inbox over REST, a /notifications socket that
// records every `notification:new`, and settings changes.
import type { Socket } from 'socket.io-client';
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import type { TestUser } from '../helpers/api.js';
import { connect, nextEvent, type Transport } from '../realtime/socket-client.js';

export const SNS = '/sns/api/v1';
export const INBOX = `${SNS}/notifications`;

export async function inbox(user: TestUser, query = ''): Promise<any> {
  const res = await user.api.get(`${INBOX}${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Polls the inbox until `match` finds a notification (a push may come a moment after the write). */
export async function waitForNotification(user: TestUser, match: (n: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await inbox(user, '?limit=100')).notifications.find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('notification not in the inbox in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A /notifications socket of `user` with every `notification:new` it got, in order. */
export async function listen(server: TestServer, user: TestUser, transport: Transport): Promise<{ socket: Socket; received: any[] }> {
  const socket = await connect(server.url, '/notifications', user.token, transport);
  const received: any[] = [];
  socket.on('notification:new', (n) => received.push(n));
  return { socket, received };
}

export const nextNotification = (socket: Socket, match: (n: any) => boolean, timeoutMs = 15_000) =>
  nextEvent<any>(socket, 'notification:new', match, timeoutMs);

export async function setSettings(user: TestUser, patch: Record<string, unknown>): Promise<void> {
  const res = await user.api.put('/content/api/v1/user/settings', patch);
  expect(res.status, res.text).toBe(200);
}

/** Gives pushes that must NOT happen the time they would have taken. */
export const settle = (ms = 1_500) => new Promise((r) => setTimeout(r, ms));

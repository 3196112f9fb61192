// Typing indicators on /chat (CONTRACT §18): never stored; each socket keeps a timer per room it
// is typing in. A `typing:start` not renewed within 6 s ends by itself (the others get
// `typing: false`), as does every indicator of a socket that disconnects. The push goes to the
// others in the room on every node (the adapter), never to the typist's own sockets.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from '../../src/shared/errors.js';
import type { Logger } from '../../src/shared/logger.js';
import type { RealtimeSocket } from '../socket-types.js';
import { rooms } from '../rooms.js';
import type { LiveAudience } from '../../src/live/index.js';
import type { TypingView } from '../../src/chat/index.js';
import { inOrder } from '../transport/in-order.js';

/** A start not renewed within this long ends by itself (CONTRACT §18). */
export const TYPING_EXPIRY_MS = 6_000;
/** Typing events one socket may send per TYPING_WINDOW_SECONDS (times RATE_LIMIT_SCALE). */
const TYPING_EVENTS_PER_WINDOW = 10;
const TYPING_WINDOW_SECONDS = 10;

export interface SocketTyping {
  start(roomId: string): void;
  stop(roomId: string): void;
  stopAll(): void;
}

/** Counts typing events per socket (in memory: a socket lives on one node). */
export function typingRateLimit(scale: number): (socketId: string) => Promise<void> {
  const limiter = new RateLimiterMemory({
    points: Math.max(1, Math.ceil(TYPING_EVENTS_PER_WINDOW * scale)),
    duration: TYPING_WINDOW_SECONDS,
    keyPrefix: 'typing',
  });
  return async (socketId) => {
    try {
      await limiter.consume(socketId, 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw tooManyRequests('rate_limit.error.exceeded', 'Too many typing events, slow down');
      throw rejection;
    }
  };
}

export function socketTyping(socket: RealtimeSocket, live: LiveAudience, log: Logger): SocketTyping {
  const { userId } = socket.data.caller;
  const timers = new Map<string, NodeJS.Timeout>();
  const ordered = inOrder(log, 'typing');
  // Whom the domain lets hear it: not the typist's own sockets, nor either side of a block (CONTRACT §21).
  const push = (roomId: string, typing: boolean) =>
    ordered(async () => {
      const { withheld } = await live.apartFrom(userId);
      const view: TypingView = { roomId, userId, typing };
      socket.to(rooms.chat(roomId)).except(withheld.map(rooms.user)).emit('typing', view);
    });
  const stop = (roomId: string) => {
    const timer = timers.get(roomId);
    if (!timer) return;
    clearTimeout(timer);
    timers.delete(roomId);
    push(roomId, false);
  };
  return {
    start(roomId) {
      const running = timers.get(roomId);
      if (running) clearTimeout(running);
      else push(roomId, true);
      timers.set(
        roomId,
        setTimeout(() => stop(roomId), TYPING_EXPIRY_MS),
      );
    },
    stop,
    stopAll() {
      for (const roomId of [...timers.keys()]) stop(roomId);
    },
  };
}

// /chat: members join their rooms, send messages (the same operation as REST POST
// /chat/messages), mark what they read, say they are typing; they receive every change in their
// rooms (new, edited and deleted messages, reactions, read positions, typing) and the presence
// of the people they share a room with. Each socket counts towards its user's presence. Who may
// have a push (blocks, CONTRACT §21) is the domain's answer (src/live/audience.ts): every push
// that a member's doing causes names that member.
import { joinRoomPayload, roomReadPayload, sendMessageBody, typingPayload } from '../../src/chat/index.js';
import { messageDeletedViewSchema, messageReactionViewSchema, readViewSchema, typingViewSchema } from '../../src/chat/index.js';
import { presenceViewSchema } from '../../src/presence/index.js';
import { messageViewSchema } from '../../src/chat/index.js';
import { rooms } from '../rooms.js';
import { EVERYONE } from '../../src/live/index.js';
import { clientEvents, defineNamespace, push, type SocketContext } from '../namespace.js';
import { socketTyping, typingRateLimit, type SocketTyping } from './chat-typing.js';

interface ChatNode {
  /** Typing events per socket, on top of the general limit. */
  typingLimit: (socketId: string) => Promise<void>;
}

interface ChatSocket {
  typing: SocketTyping;
}

type ChatServices = 'chat' | 'presence' | 'liveAudience';

const event = clientEvents<ChatNode, ChatSocket, ChatServices>();

/** Member of the room: the socket is in it (membership was checked to get there) or the database says so. */
const memberOf = (ctx: SocketContext<ChatNode, ChatSocket, ChatServices>, roomId: string) =>
  ctx.socket.rooms.has(rooms.chat(roomId)) ? Promise.resolve() : ctx.services.chat.assertMember(ctx.caller, roomId);

export const chatNamespace = defineNamespace<ChatNode, ChatSocket, ChatServices>()({
  name: '/chat',
  description:
    'Chat rooms (CONTRACT §7, §8). On connect the socket is already in every room the caller is a member of; ' +
    'rooms made later are joined with `room:join`. A message sent here or over REST is stored once and pushed to every member on every node.',
  uses: ['chat', 'presence', 'liveAudience'],

  // Each handler checks that its socket is still connected before it touches it after an await.
  events: {
    'room:join': event({
      summary: 'Join a chat room the caller is a member of (403 `chat.error.not_member` otherwise).',
      payload: joinRoomPayload,
      ack: null,
      async handle({ roomId }, { socket, caller, services }) {
        await services.chat.assertMember(caller, roomId);
        if (socket.connected) await socket.join(rooms.chat(roomId));
      },
    }),
    'room:leave': event({
      summary: 'Stop receiving the messages of a room on this socket.',
      payload: joinRoomPayload,
      ack: null,
      async handle({ roomId }, { socket, state }) {
        state.typing.stop(roomId);
        await socket.leave(rooms.chat(roomId));
      },
    }),
    'message:send': event({
      summary: 'Send a message (the same operation as POST /sns/api/v1/chat/messages); the ack carries the stored message.',
      payload: sendMessageBody,
      ack: messageViewSchema,
      async handle(payload, { caller, services, state }) {
        const message = await services.chat.sendMessage(caller, payload);
        state.typing.stop(payload.roomId);
        return message;
      },
    }),
    'room:read': event({
      summary:
        "Store the caller's last read message of a room (the same operation as POST /sns/api/v1/chat/rooms/{roomId}/read; never moves backwards); the ack carries the stored position.",
      payload: roomReadPayload,
      ack: readViewSchema,
      handle: ({ roomId, messageId }, { caller, services }) => services.chat.markRead(caller, roomId, messageId),
    }),
    'typing:start': event({
      summary:
        'The caller is typing in a room (members only): the others get `typing {typing: true}`; it ends by itself unless renewed within 6 s. At most 10 typing events per 10 s per socket (429 `rate_limit.error.exceeded`).',
      payload: typingPayload,
      ack: null,
      async handle({ roomId }, ctx) {
        await ctx.node.typingLimit(ctx.socket.id);
        await memberOf(ctx, roomId);
        if (ctx.socket.connected) ctx.state.typing.start(roomId);
      },
    }),
    'typing:stop': event({
      summary: 'The caller stopped typing in a room: the others get `typing {typing: false}`.',
      payload: typingPayload,
      ack: null,
      async handle({ roomId }, ctx) {
        await ctx.node.typingLimit(ctx.socket.id);
        await memberOf(ctx, roomId);
        ctx.state.typing.stop(roomId);
      },
    }),
  },

  pushes: {
    'message:new': push({
      summary: 'A message stored in one of the rooms this socket is in (SPEC 2.9).',
      payload: messageViewSchema,
      on: 'chat.message',
      audience: ({ message }, live) => live.ofActor(message.sender.userId),
      emit: ({ roomId, message }) => ({ to: rooms.chat(roomId), data: message }),
    }),
    'message:updated': push({
      summary: 'A message of the room was edited by its sender (`editedAt` set).',
      payload: messageViewSchema,
      on: 'chat.message.edited',
      audience: ({ message }, live) => live.ofActor(message.sender.userId),
      emit: ({ roomId, message }) => ({ to: rooms.chat(roomId), data: message }),
    }),
    'message:deleted': push({
      summary: 'A message of the room was deleted by its sender; the history shows it as `{_id, roomId, deleted: true, createdAt}`.',
      payload: messageDeletedViewSchema,
      on: 'chat.message.deleted',
      audience: ({ senderId }, live) => (senderId ? live.ofActor(senderId) : Promise.resolve(EVERYONE)),
      emit: ({ roomId, _id }) => ({ to: rooms.chat(roomId), data: { roomId, _id } }),
    }),
    'message:reaction': push({
      summary: 'The reactions of a message of the room changed: all of them, by emoji.',
      payload: messageReactionViewSchema,
      on: 'chat.reactions.changed',
      audience: ({ actorId }, live) => live.ofActor(actorId),
      emit: ({ roomId, _id, reactions }) => ({ to: rooms.chat(roomId), data: { roomId, _id, reactions } }),
    }),
    read: push({
      summary: "Another member's read position moved forward (never sent for the caller's own reads).",
      payload: readViewSchema,
      on: 'chat.read',
      audience: (read, live) => live.apartFrom(read.userId),
      emit: (read) => ({ to: rooms.chat(read.roomId), data: read }),
    }),
    // Sent by the typing handlers (chat-typing.ts).
    typing: push({
      summary:
        'Another member started or stopped typing in the room (also `typing: false` when a start was not renewed within 6 s, or the typist disconnected).',
      payload: typingViewSchema,
    }),
    // One emit to all the user's rooms at once: a socket in several of them gets it once.
    presence: push({
      summary:
        'A user who shares a room with the caller came online (their first /chat socket on any node) or went offline (their last one went, or their node stopped heartbeating); sent once even when several rooms are shared.',
      payload: presenceViewSchema,
      on: 'presence.changed',
      audience: (view, live) => live.apartFrom(view.userId),
      emit: ({ roomIds, ...view }) => (roomIds.length ? { to: roomIds.map(rooms.chat), data: view } : null),
    }),
  },

  start: ({ app }): ChatNode => ({ typingLimit: typingRateLimit(app.config.RATE_LIMIT_SCALE) }),

  // Already a member: joined before the connection completes, so messages arrive without
  // asking. Rooms made later are joined with `room:join`. A socket that cannot read its rooms
  // still connects (it can join them with `room:join`).
  async handshake(socket, { app, services }) {
    let ids: string[];
    try {
      ids = await services.chat.roomIdsOf(socket.data.caller.userId);
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, 'could not join chat rooms on connect');
      return;
    }
    // Not awaited: membership is local at once, and the cluster subscription behind the join's
    // promise never rejects (realtime/rooms-adapter.ts).
    if (ids.length && socket.conn.readyState === 'open') void socket.join(ids.map(rooms.chat));
  },

  // `connection` fires for new and recovered sockets alike (a recovered one skips the handshake
  // steps and keeps its rooms), so presence counts both.
  connect(socket, { app, services }): ChatSocket {
    const { userId } = socket.data.caller;
    const typing = socketTyping(socket, services.liveAudience, app.log);
    services.presence.socketConnected(userId);
    socket.on('disconnect', () => {
      typing.stopAll();
      services.presence.socketDisconnected(userId);
    });
    return { typing };
  },
});

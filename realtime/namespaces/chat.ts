// /chat: members join their rooms, send messages (the same operation as REST POST
// /chat/messages), mark what they read, say they are typing; they receive every change in their
// rooms (new, edited and deleted messages, reactions, read positions, typing) and the presence
// of the people they share a room with. Each socket counts towards its user's presence.
import type { AppContext } from '../../src/context.js';
import type { ChatService } from '../../src/chat/service.js';
import type { PresenceService } from '../../src/presence/service.js';
import { joinRoomPayload, roomReadPayload, sendMessageBody, typingPayload } from '../../src/chat/schemas.js';
import { withAck } from '../ack.js';
import { rooms, type RealtimeNamespace, type RealtimeSocket } from '../events.js';
import type { SocketRateLimit } from '../socket-rate-limit.js';
import { socketTyping, typingRateLimit } from './chat-typing.js';

export function registerChatNamespace(
  nsp: RealtimeNamespace,
  app: AppContext,
  chat: ChatService,
  presence: PresenceService,
  rateLimit: SocketRateLimit,
): () => void {
  const typingLimit = typingRateLimit(app.config.RATE_LIMIT_SCALE);

  // Already a member: joined before the connection completes, so messages arrive without
  // asking. Rooms made later are joined with `room:join`. (Runs after the handshake auth.)
  nsp.use((socket, next) => {
    chat.roomIdsOf(socket.data.caller.userId).then(
      (ids) => {
        if (ids.length) socket.join(ids.map(rooms.chat));
        next();
      },
      (err) => {
        app.log.warn({ err: (err as Error).message }, 'could not join chat rooms on connect');
        next();
      },
    );
  });

  // `connection` fires for new and recovered sockets alike (a recovered one skips the middleware
  // above and keeps its rooms), so presence counts both.
  nsp.on('connection', (socket: RealtimeSocket) => {
    const { caller } = socket.data;
    const typing = socketTyping(socket);
    presence.socketConnected(caller.userId);
    socket.on('disconnect', () => {
      typing.stopAll();
      presence.socketDisconnected(caller.userId);
    });

    /** Member of the room: the socket is in it (membership was checked to get there) or the database says so. */
    const assertMember = async (roomId: string) => {
      if (!socket.rooms.has(rooms.chat(roomId))) await chat.assertMember(caller, roomId);
    };

    socket.on(
      'room:join',
      withAck(app.log, joinRoomPayload, async ({ roomId }) => {
        await rateLimit(caller.userId);
        await chat.assertMember(caller, roomId);
        await socket.join(rooms.chat(roomId));
      }),
    );
    socket.on(
      'room:leave',
      withAck(app.log, joinRoomPayload, async ({ roomId }) => {
        typing.stop(roomId);
        await socket.leave(rooms.chat(roomId));
      }),
    );
    socket.on(
      'message:send',
      withAck(app.log, sendMessageBody, async (payload) => {
        await rateLimit(caller.userId);
        const message = await chat.sendMessage(caller, payload);
        typing.stop(payload.roomId);
        return message;
      }),
    );
    socket.on(
      'room:read',
      withAck(app.log, roomReadPayload, async ({ roomId, messageId }) => {
        await rateLimit(caller.userId);
        return chat.markRead(caller, roomId, messageId);
      }),
    );
    socket.on(
      'typing:start',
      withAck(app.log, typingPayload, async ({ roomId }) => {
        await typingLimit(socket.id);
        await assertMember(roomId);
        typing.start(roomId);
      }),
    );
    socket.on(
      'typing:stop',
      withAck(app.log, typingPayload, async ({ roomId }) => {
        await typingLimit(socket.id);
        await assertMember(roomId);
        typing.stop(roomId);
      }),
    );
  });

  presence.start();
  const toRoom = (roomId: string) => nsp.to(rooms.chat(roomId));
  const stops = [
    app.events.subscribe('chat.message', ({ roomId, message }) => toRoom(roomId).emit('message:new', message)),
    app.events.subscribe('chat.message.edited', ({ roomId, message }) => toRoom(roomId).emit('message:updated', message)),
    app.events.subscribe('chat.message.deleted', (deleted) => toRoom(deleted.roomId).emit('message:deleted', deleted)),
    app.events.subscribe('chat.reactions.changed', (reactions) => toRoom(reactions.roomId).emit('message:reaction', reactions)),
    // The other members: not the reader's own sockets.
    app.events.subscribe('chat.read', (read) => toRoom(read.roomId).except(rooms.user(read.userId)).emit('read', read)),
    // One emit to all the user's rooms at once: a socket in several of them gets it once.
    app.events.subscribe('presence.changed', ({ roomIds, ...view }) => {
      if (roomIds.length) nsp.to(roomIds.map(rooms.chat)).except(rooms.user(view.userId)).emit('presence', view);
    }),
  ];
  return () => {
    stops.forEach((stop) => stop());
    void presence.stop();
  };
}

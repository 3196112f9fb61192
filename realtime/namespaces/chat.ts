// /chat: members join their rooms, send messages (the same operation as REST POST
// /chat/messages), mark what they read, say they are typing; they receive every change in their
// rooms (new, edited and deleted messages, reactions, read positions, typing) and the presence
// of the people they share a room with. Each socket counts towards its user's presence.
import type { AppContext } from '../../src/context.js';
import type { ChatService } from '../../src/chat/service.js';
import type { PresenceService } from '../../src/presence/service.js';
import { joinRoomPayload, roomReadPayload, sendMessageBody, typingPayload } from '../../src/chat/schemas.js';
import { rooms } from '../events.js';
import type { NamespaceEdge } from '../socket-edge.js';
import { socketTyping, typingRateLimit } from './chat-typing.js';
import type { BlockService } from '../../src/blocks/service.js';
import { blockerRooms, eitherWayRooms, inOrder } from '../blocked-rooms.js';

export function registerChatNamespace(edge: NamespaceEdge, app: AppContext, chat: ChatService, presence: PresenceService, blocks: BlockService): () => void {
  const { nsp } = edge;
  const typingLimit = typingRateLimit(app.config.RATE_LIMIT_SCALE);

  // Already a member: joined before the connection completes, so messages arrive without
  // asking. Rooms made later are joined with `room:join`. A socket that cannot read its rooms
  // still connects (it can join them with `room:join`).
  edge.use(async (socket) => {
    let ids: string[];
    try {
      ids = await chat.roomIdsOf(socket.data.caller.userId);
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, 'could not join chat rooms on connect');
      return;
    }
    if (ids.length && socket.conn.readyState === 'open') socket.join(ids.map(rooms.chat));
  });

  // `connection` fires for new and recovered sockets alike (a recovered one skips the handshake
  // steps and keeps its rooms), so presence counts both.
  edge.onConnection((socket, on) => {
    const { caller } = socket.data;
    const typing = socketTyping(socket, blocks, app.log);
    presence.socketConnected(caller.userId);
    socket.on('disconnect', () => {
      typing.stopAll();
      presence.socketDisconnected(caller.userId);
    });

    /** Member of the room: the socket is in it (membership was checked to get there) or the database says so. */
    const assertMember = async (roomId: string) => {
      if (!socket.rooms.has(rooms.chat(roomId))) await chat.assertMember(caller, roomId);
    };

    // Each handler checks that its socket is still connected before it touches it after an await.
    on('room:join', joinRoomPayload, async ({ roomId }) => {
      await chat.assertMember(caller, roomId);
      if (socket.connected) await socket.join(rooms.chat(roomId));
    });
    on('room:leave', joinRoomPayload, async ({ roomId }) => {
      typing.stop(roomId);
      await socket.leave(rooms.chat(roomId));
    });
    on('message:send', sendMessageBody, async (payload) => {
      const message = await chat.sendMessage(caller, payload);
      typing.stop(payload.roomId);
      return message;
    });
    on('room:read', roomReadPayload, async ({ roomId, messageId }) => chat.markRead(caller, roomId, messageId));
    on('typing:start', typingPayload, async ({ roomId }) => {
      await typingLimit(socket.id);
      await assertMember(roomId);
      if (socket.connected) typing.start(roomId);
    });
    on('typing:stop', typingPayload, async ({ roomId }) => {
      await typingLimit(socket.id);
      await assertMember(roomId);
      typing.stop(roomId);
    });
  });

  presence.start();
  const toRoom = (roomId: string) => nsp.to(rooms.chat(roomId));
  // One queue for the room events, so a message and its edit keep their order while the block
  // lists are looked up: a message is not pushed to those who blocked its sender (CONTRACT §21).
  const push = inOrder(app.log, 'chat event');
  const stops = [
    app.events.subscribe('chat.message', ({ roomId, message }) =>
      push(async () => void toRoom(roomId).except(await blockerRooms(blocks, message.sender.userId)).emit('message:new', message)),
    ),
    app.events.subscribe('chat.message.edited', ({ roomId, message }) =>
      push(async () => void toRoom(roomId).except(await blockerRooms(blocks, message.sender.userId)).emit('message:updated', message)),
    ),
    app.events.subscribe('chat.message.deleted', (deleted) => push(async () => void toRoom(deleted.roomId).emit('message:deleted', deleted))),
    app.events.subscribe('chat.reactions.changed', (reactions) => push(async () => void toRoom(reactions.roomId).emit('message:reaction', reactions))),
    // The other members: not the reader's own sockets, nor those who blocked the reader.
    app.events.subscribe('chat.read', (read) =>
      push(async () => void toRoom(read.roomId).except([rooms.user(read.userId), ...(await blockerRooms(blocks, read.userId))]).emit('read', read)),
    ),
    // One emit to all the user's rooms at once: a socket in several of them gets it once. Nobody
    // on either side of a block with the user hears of their presence.
    app.events.subscribe('presence.changed', ({ roomIds, ...view }) => {
      if (!roomIds.length) return;
      push(async () => void nsp.to(roomIds.map(rooms.chat)).except([rooms.user(view.userId), ...(await eitherWayRooms(blocks, view.userId))]).emit('presence', view));
    }),
  ];
  return () => {
    stops.forEach((stop) => stop());
    void presence.stop();
  };
}

// /chat: members join their rooms, send messages (the same operation as REST POST
// /chat/messages) and receive `message:new` for every message stored in their rooms.
import type { AppContext } from '../../src/context.js';
import type { ChatService } from '../../src/chat/service.js';
import { joinRoomPayload, sendMessageBody } from '../../src/chat/schemas.js';
import { withAck } from '../ack.js';
import { rooms, type RealtimeNamespace, type RealtimeSocket } from '../events.js';
import type { SocketRateLimit } from '../socket-rate-limit.js';

export function registerChatNamespace(nsp: RealtimeNamespace, app: AppContext, chat: ChatService, rateLimit: SocketRateLimit): () => void {
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

  nsp.on('connection', (socket: RealtimeSocket) => {
    const { caller } = socket.data;
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
        await socket.leave(rooms.chat(roomId));
      }),
    );
    socket.on(
      'message:send',
      withAck(app.log, sendMessageBody, async (payload) => {
        await rateLimit(caller.userId);
        return chat.sendMessage(caller, payload);
      }),
    );
  });

  return app.events.subscribe('chat.message', ({ roomId, message }) => {
    nsp.to(rooms.chat(roomId)).emit('message:new', message);
  });
}

// /chat: members join their rooms, send messages (the same operation as REST POST
// /chat/messages) and receive `message:new` for every message stored in their rooms.
import type { AppContext } from '../../src/context.js';
import type { ChatService } from '../../src/chat/service.js';
import { joinRoomPayload, sendMessageBody } from '../../src/chat/schemas.js';
import { withAck } from '../ack.js';
import { rooms, type ChatNamespace, type ChatSocket } from '../events.js';

export function registerChatNamespace(nsp: ChatNamespace, app: AppContext, chat: ChatService): () => void {
  nsp.on('connection', (socket: ChatSocket) => {
    const { caller } = socket.data;
    // Already a member: joined at once, so messages arrive without asking. Rooms made later
    // are joined with `room:join`.
    chat.roomIdsOf(caller.userId).then(
      (ids) => {
        if (ids.length && socket.connected) socket.join(ids.map(rooms.chat));
      },
      (err) => app.log.warn({ err: (err as Error).message }, 'could not join chat rooms on connect'),
    );

    socket.on(
      'room:join',
      withAck(app.log, joinRoomPayload, async ({ roomId }) => {
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
      withAck(app.log, sendMessageBody, (payload) => chat.sendMessage(caller, payload)),
    );
  });

  return app.events.subscribe('chat.message', ({ roomId, message }) => {
    nsp.to(rooms.chat(roomId)).emit('message:new', message as never);
  });
}

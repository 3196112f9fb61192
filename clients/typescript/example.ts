// A small program using the client, typechecked by the test suite (test/docs/client.test.ts): if
// the server's documents change in a way that breaks it, the suite says so.
import { io, type Socket } from 'socket.io-client';
import { createRestClient, type ClientEventsOf, type ServerEventsOf } from './index.js';

/** Opens the caller's first chat room, sends a message over the socket and prints the ones that arrive. */
export async function example(baseUrl: string, token: string): Promise<void> {
  const api = createRestClient({ baseUrl, token });
  const rooms = await api.GET('/sns/api/v1/chat/rooms', { params: { query: { limit: 20 } } });
  if (rooms.error) throw new Error(`${rooms.error.error_code}: ${rooms.error.message}`);
  const room = rooms.data.data.rooms[0];
  if (!room) return;

  const history = await api.GET('/sns/api/v1/chat/rooms/{roomId}/messages', { params: { path: { roomId: room.roomId }, query: { limit: 10 } } });
  for (const item of history.data?.data.messages ?? []) console.log(item._id, item.createdAt);

  const chat: Socket<ServerEventsOf<'/chat'>, ClientEventsOf<'/chat'>> = io(`${baseUrl}/chat`, { auth: { token } });
  chat.on('message:new', (message) => console.log(message.sender.name, message.msg));
  chat.emit('message:send', { roomId: room.roomId, msg: 'Is it still available?' }, (ack) => {
    if (ack.ok) console.log('stored as', ack.data._id);
    else console.log('refused:', ack.error_code);
  });
}

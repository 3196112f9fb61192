// /processing: the uploader's sockets (their own room, joined at the handshake) follow their
// resumable uploads landing (`upload:progress`) and their videos being processed:
// `video:progress`, `video:completed`, `video:failed`.
import type { AppContext } from '../../src/context.js';
import { rooms } from '../events.js';
import type { NamespaceEdge } from '../socket-edge.js';

export function registerProcessingNamespace({ nsp }: NamespaceEdge, app: AppContext): () => void {
  const stops = [
    app.events.subscribe('video.progress', ({ uploaderId, contentId, stage, percent }) => {
      nsp.to(rooms.user(uploaderId)).emit('video:progress', { contentId, stage, percent });
    }),
    app.events.subscribe('video.completed', ({ uploaderId, contentId, video }) => {
      nsp.to(rooms.user(uploaderId)).emit('video:completed', { contentId, video });
    }),
    app.events.subscribe('video.failed', ({ uploaderId, contentId, error_code, message }) => {
      nsp.to(rooms.user(uploaderId)).emit('video:failed', { contentId, error_code, message });
    }),
    app.events.subscribe('upload.progress', ({ uploaderId, contentId, offset, length }) => {
      nsp.to(rooms.user(uploaderId)).emit('upload:progress', { contentId, offset, length });
    }),
  ];
  return () => stops.forEach((stop) => stop());
}

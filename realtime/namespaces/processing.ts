// /processing: the uploader's sockets (their own room, joined at the handshake) follow their
// resumable uploads landing (`upload:progress`) and their videos being processed:
// `video:progress`, `video:completed`, `video:failed`. Nothing to emit.
import { z } from 'zod';
import { videoSummarySchema } from '../../src/content/index.js';
import { rooms } from '../rooms.js';
import { defineNamespace, push } from '../namespace.js';

export const processingNamespace = defineNamespace()({
  name: '/processing',
  description: "The caller's resumable uploads and the processing of their videos: each socket is in the caller's room from the handshake on; nothing to emit.",
  uses: [],
  events: {},
  pushes: {
    'video:progress': push({
      summary: "A processing stage of one of the caller's videos moved on.",
      payload: z.object({ contentId: z.string(), stage: z.string(), percent: z.number() }),
      on: 'video.progress',
      emit: ({ uploaderId, contentId, stage, percent }) => ({ to: rooms.user(uploaderId), data: { contentId, stage, percent } }),
    }),
    'video:completed': push({
      summary: "One of the caller's videos is processed: `video` is its video object (SPEC 2.2, `status: completed`).",
      payload: z.object({ contentId: z.string(), video: videoSummarySchema }),
      on: 'video.completed',
      emit: ({ uploaderId, contentId, video }) => ({ to: rooms.user(uploaderId), data: { contentId, video } }),
    }),
    'video:failed': push({
      summary: "One of the caller's videos could not be processed.",
      payload: z.object({ contentId: z.string(), error_code: z.string(), message: z.string() }),
      on: 'video.failed',
      emit: ({ uploaderId, contentId, error_code, message }) => ({ to: rooms.user(uploaderId), data: { contentId, error_code, message } }),
    }),
    'upload:progress': push({
      summary:
        "Bytes of one of the caller's resumable uploads (CONTRACT §24) landed: `offset` of `length` bytes are stored. " +
        'At most 4 a second per upload; the last one (offset = length) always comes.',
      payload: z.object({ contentId: z.string(), offset: z.number().int(), length: z.number().int() }),
      on: 'upload.progress',
      emit: ({ uploaderId, contentId, offset, length }) => ({ to: rooms.user(uploaderId), data: { contentId, offset, length } }),
    }),
  },
});

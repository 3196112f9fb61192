// {file_api} = /file-processing/api/v1 (SPEC §4.4): one POST /upload with two multipart forms.
// - general: field `file` + `type` (+ optional JSON `metadata`) → 201 with the uploaded file result;
// - attached to a content item: query `id` (+ `topic-key` for extra images), file field `files`.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { UPLOAD_KINDS } from '../../src/media/index.js';
import { MAX_IMAGES_PER_REQUEST } from '../../src/media/index.js';

const base = '/file-processing/api/v1';
const tag = 'files';

const uploadQuery = z.object({
  id: z.string().max(100).optional(),
  'topic-key': z.string().trim().min(1).max(64).optional(),
});

const uploadedFileResult = z.object({
  file_id: z.string(),
  url: z.string(),
  type: z.enum(UPLOAD_KINDS),
  size: z.number().int(),
  processing_status: z.string(),
  metadata: z.object({ width: z.number().nullable(), height: z.number().nullable(), format: z.string() }),
});

export const fileRoutes = routeModule(['uploads'], (app, services) => {
  const { uploads } = services;
  const { MAX_IMAGE_BYTES, MAX_VIDEO_BYTES, MAX_DOCUMENT_BYTES } = app.config;
  // The per-kind limit is known only once the `type` field (or the form) is read, so the reader
  // takes the largest and the service checks each file against its own kind's limit. The whole
  // body may hold one video, one document or up to 10 images: a larger Content-Length is
  // refused before anything is read.
  const maxFileBytes = Math.max(MAX_IMAGE_BYTES, MAX_VIDEO_BYTES, MAX_DOCUMENT_BYTES);
  const maxTotalBytes = Math.max(MAX_VIDEO_BYTES, MAX_DOCUMENT_BYTES, MAX_IMAGE_BYTES * MAX_IMAGES_PER_REQUEST) + 1024 * 1024;

  return [
    defineRoute({
      method: 'POST',
      path: `${base}/upload`,
      tag,
      auth: 'user',
      permission: 'upload:file',
      rateLimits: ['uploads'],
      summary:
        'Upload a file. General form: multipart `file` + `type` (image|video|document) + optional `metadata` (JSON object) → 201 uploaded file result. ' +
        'Attached form: query `id` (content id) with multipart `files`: the main video (→ {success, message}, processing starts), ' +
        'or with query `topic-key` (e.g. video_images_url) up to 10 images appended to the item (→ JSON array of {url}).',
      query: uploadQuery,
      multipart: { maxFileBytes, maxFiles: MAX_IMAGES_PER_REQUEST, fileFields: ['file', 'files'], maxTotalBytes },
      successStatus: 201,
      responseData: uploadedFileResult,
      errorStatuses: [400, 401, 403, 404, 413, 429, 500, 507],
      handler: async ({ caller, query, files, fields }) => {
        const outcome = await uploads.upload(caller, { contentId: query.id, topicKey: query['topic-key'], files, fields });
        switch (outcome.form) {
          case 'content-images':
            return { status: 201, raw: outcome.images };
          case 'main-video':
            return { status: 200, raw: { success: true, message: 'Video uploaded; processing has started' } };
          case 'general':
            return { status: 201, message: 'File uploaded', data: outcome.file };
        }
      },
    }),
  ];
});

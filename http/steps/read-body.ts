// The body: JSON parsed (not yet validated), or a multipart form streamed to temporary files.
import { AppError } from '../../src/shared/errors.js';
import { readMultipart } from '../multipart.js';
import type { Step } from './request-state.js';

export function readBody(tmpDir: string): Step {
  return {
    name: 'read-body',
    run: async (state) => {
      const { route, body } = state;
      if (route.multipart) {
        if (!body) throw new AppError(400, 'request.error.missing_body', 'A multipart/form-data body is required', { field: 'body', constraint: 'required' });
        const form = await readMultipart(body, state.exchange.headers, route.multipart, tmpDir);
        state.files = form.files;
        state.fields = form.fields;
        return;
      }
      if (!body) return;
      const raw = await body.readAll();
      if (!raw.length) return;
      try {
        state.json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new AppError(400, 'request.error.malformed_json', 'Request body is not valid JSON', { field: 'body', constraint: 'valid JSON' });
      }
    },
  };
}

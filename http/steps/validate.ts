// Every part of the request through the route's zod schemas: body, query, path parameters and
// headers, after their text was made storable (no NUL, no lone surrogate). The first bad field
// is a 400 naming it; the handler gets the parsed values.
import type { z } from 'zod';
import { unauthorized } from '../../src/shared/errors.js';
import type { Caller } from '../../src/auth/index.js';
import { storableText } from '../../src/shared/storable-text.js';
import { validationError } from '../envelope.js';
import type { Step } from './request-state.js';

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, part: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(part, result.error);
  return result.data;
}

export const validate: Step = {
  name: 'validate',
  run: (state) => {
    const { route, exchange, caller } = state;
    // A stored route's schemas have their types erased (AnyRoute): each is a zod schema all the same.
    /* eslint-disable @typescript-eslint/no-unsafe-argument */
    state.context = {
      body: parsePart(route.body, storableText(state.json, 'body'), 'body'),
      query: parsePart(route.query, storableText(Object.fromEntries(new URLSearchParams(exchange.rawQuery)), 'query'), 'query'),
      params: parsePart(route.params, storableText(state.pathParams, 'params'), 'params'),
      headers: parsePart(route.headers, exchange.headers, 'headers'),
      /* eslint-enable @typescript-eslint/no-unsafe-argument */
      rawHeaders: exchange.headers,
      get caller(): Caller {
        if (!caller) throw unauthorized('auth.error.missing_token', 'A bearer access token is required');
        return caller;
      },
      optionalCaller: caller,
      ip: exchange.ip,
      requestId: exchange.requestId,
      // A file's name is client text too (it is stored as the upload's display name).
      files: state.files.map((file) => ({ ...file, filename: String(storableText(file.filename, 'body', [file.field, 'filename'])) })),
      fields: storableText(state.fields, 'body') as Record<string, string>,
      app: state.app,
    };
  },
};

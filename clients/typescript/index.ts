// The typed client of the service: REST through openapi-fetch with the types of rest.d.ts, and
// the Socket.IO event maps of events.d.ts (types only; use them with socket.io-client). Both
// .d.ts files are generated from the server's documents by `npm run client:generate`.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './rest.js';

export type { paths, components, operations } from './rest.js';
export type { components as eventSchemas, Namespaces, ClientEventsOf, ServerEventsOf } from './events.js';
export type * from './events.js';

export type RestClient = Client<paths>;

export interface RestClientOptions {
  /** The service's address, e.g. `https://api.example.vn` (no trailing slash). */
  baseUrl: string;
  /** The AccessToken to send as `Authorization: Bearer`, or a function that returns the current one. */
  token?: string | (() => string | null | undefined);
  /** Sent as `x-language` (en, vi, ko) for localised content. */
  language?: string;
  fetch?: typeof globalThis.fetch;
}

/** A REST client whose paths, parameters, bodies and answers are typed from the OpenAPI document. */
export function createRestClient(options: RestClientOptions): RestClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const headers: Middleware = {
    onRequest({ request }) {
      const token = typeof options.token === 'function' ? options.token() : options.token;
      if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
      if (options.language && !request.headers.has('x-language')) request.headers.set('x-language', options.language);
      return request;
    },
  };
  client.use(headers);
  return client;
}

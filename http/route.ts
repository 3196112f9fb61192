// How every REST endpoint is declared: once, with its zod schemas, its auth mode, its
// permission, its rate limits and its handler. The server, the OpenAPI document and the
// README's permission table are all derived from these declarations.
import type { z } from 'zod';
import type { Caller } from '../src/auth/index.js';
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import type { RateLimitName } from './rate-limit.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - public: no token needed (a token, if sent, is ignored);
 * - user: a valid access token of a live session is required (401 otherwise);
 * - optional: a valid token is used when sent; a bad one is still 401.
 */
export type AuthMode = 'public' | 'user' | 'optional';

export interface UploadedFile {
  field: string;
  /** The client's file name (untrusted; never used as a path). */
  filename: string;
  /** The client's declared type (untrusted; check the bytes). */
  mimeType: string;
  /** Temporary path on disk; removed after the handler unless the handler moved it. */
  path: string;
  size: number;
}

export interface MultipartOptions {
  /** Largest single file accepted (bytes): more answers 413. */
  maxFileBytes: number;
  /** Most files accepted in one request. */
  maxFiles: number;
  /** File field names accepted. */
  fileFields: string[];
  /**
   * Largest whole body accepted (bytes), when it is less than maxFileBytes × maxFiles (e.g. one
   * big video or several small images): a larger Content-Length is refused with 413 before reading.
   */
  maxTotalBytes?: number;
}

export interface RequestContext<B, Q, P, H = Record<string, string>> {
  body: B;
  query: Q;
  params: P;
  /** The headers as the route's `headers` schema parsed them (lower-cased names); all of them when it has none. */
  headers: H;
  /** Every header as sent (lower-cased names). */
  rawHeaders: Record<string, string>;
  /** The authenticated caller; reading it on an anonymous request throws 401. */
  readonly caller: Caller;
  readonly optionalCaller: Caller | null;
  ip: string;
  requestId: string;
  /** Multipart routes only. */
  files: UploadedFile[];
  /** Multipart routes only: the non-file fields. */
  fields: Record<string, string>;
  app: AppContext;
}

/** The usual answer: the success envelope `{success: true, message, data}`. */
export interface EnvelopeResult {
  status?: number;
  message?: string;
  data?: unknown;
  headers?: Record<string, string>;
}

/** For the few endpoints SPEC gives another shape: the JSON body exactly as given. */
export interface RawResult {
  status?: number;
  raw: unknown;
  headers?: Record<string, string>;
}

/** 204 No Content. */
export interface EmptyResult {
  status: 204;
  empty: true;
  headers?: Record<string, string>;
}

export type RouteResult = EnvelopeResult | RawResult | EmptyResult;

/** The headers of a route without a `headers` schema: all of them, unparsed. */
export type AllHeaders = z.ZodType<Record<string, string>>;

export interface RouteDefinition<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  H extends z.ZodType = AllHeaders,
> {
  method: HttpMethod;
  /** Path with `:name` parameters, e.g. `/auth/api/v1/users/:userId/follow`. */
  path: string;
  summary: string;
  /** OpenAPI tag (service root). */
  tag: string;
  auth: AuthMode;
  /** Permission (`<verb>:<noun>`) the caller must hold; 403 otherwise. */
  permission?: string;
  /** Named limits this route counts against, besides `general`. */
  rateLimits?: RateLimitName[];
  /** Key for per-route limits: the caller's id (default when authenticated) or the client IP. */
  rateLimitKey?: 'user' | 'ip';
  /** Health probes only: not counted against any limit. */
  skipRateLimit?: boolean;
  body?: B;
  query?: Q;
  params?: P;
  /** Request headers the route reads (lower-cased names), validated like the body. */
  headers?: H;
  multipart?: MultipartOptions;
  /** Largest JSON body accepted (bytes); MAX_JSON_BODY_BYTES by default. */
  maxBodyBytes?: number;
  /** Success status for the OpenAPI document (200 default). */
  successStatus?: number;
  /** Schema of `data` in the success envelope, for the OpenAPI document. */
  responseData?: z.ZodType;
  /** Schema of the whole body, for a route that answers raw (a shape SPEC gives instead of the envelope). */
  responseBody?: z.ZodType;
  /** Documented error statuses, for the OpenAPI document. */
  errorStatuses?: number[];
  /** Example request body for the OpenAPI document; by default one is made from `body`'s schema. */
  example?: unknown;
  handler: (ctx: RequestContext<z.infer<B>, z.infer<Q>, z.infer<P>, z.infer<H>>) => Promise<RouteResult>;
}

// A route table holds routes of many schema types; this erases them for storage.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any, any>;

/** Declares a route with the handler's context typed from its schemas. */
export function defineRoute<
  B extends z.ZodType = z.ZodUnknown,
  Q extends z.ZodType = z.ZodUnknown,
  P extends z.ZodType = z.ZodUnknown,
  H extends z.ZodType = AllHeaders,
>(def: RouteDefinition<B, Q, P, H>): AnyRoute {
  return def as AnyRoute;
}

/**
 * A route group: the services it uses, and its routes given the context and those services only
 * (the composition root picks them: service.ts).
 */
export interface RouteModule<K extends keyof Services = keyof Services> {
  readonly uses: readonly K[];
  readonly routes: (app: AppContext, services: Pick<Services, K>) => AnyRoute[];
}

/** A route module using the services `uses` names (their types checked in `routes`). */
export function routeModule<K extends keyof Services>(
  uses: readonly K[],
  routes: (app: AppContext, services: Pick<Services, K>) => AnyRoute[],
): RouteModule<K> {
  return { uses, routes };
}

// What the steps of one request's pipeline hand on to each other.
import type { Caller } from '../../src/auth/index.js';
import type { AppContext } from '../../src/context.js';
import type { IncomingBody } from '../body.js';
import type { Exchange } from '../exchange.js';
import type { AnyRoute, RequestContext, RouteResult, UploadedFile } from '../route.js';

export interface RequestState {
  readonly exchange: Exchange;
  readonly route: AnyRoute;
  readonly app: AppContext;
  /** Path parameters as matched (still strings). */
  readonly pathParams: Record<string, string>;
  /** The request body being received, when the route takes one and the client sent one. */
  readonly body: IncomingBody | null;
  caller: Caller | null;
  /** X-RateLimit-* of the limits counted, for the answer (success or error). */
  rateHeaders: Record<string, string>;
  /** The JSON body, parsed but not yet validated. */
  json: unknown;
  files: UploadedFile[];
  fields: Record<string, string>;
  /** Set by `validate`: what the handler receives. */
  context: RequestContext<unknown, unknown, unknown, unknown> | null;
  /** Set by `handle`. */
  result: RouteResult | null;
}

/** One named step of a route's pipeline. */
export interface Step {
  name: string;
  run(state: RequestState): Promise<void> | void;
}

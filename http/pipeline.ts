// Each route's pipeline, composed once from its declaration: the named steps a request to it
// goes through, in order. Reading this list is reading what the service does with a request:
//   authenticate → limit-rate → authorise → read-body → validate → handle → respond
// (a step the route does not need is left out: no authentication on public routes, no limits on
// health probes, no permission check where none is declared, no body where none is taken).
import type { CallerResolver } from '../src/auth/index.js';
import type { RateLimits } from './rate-limit.js';
import type { AnyRoute } from './route.js';
import { authenticate } from './steps/authenticate.js';
import { authorise } from './steps/authorise.js';
import { handle } from './steps/handle.js';
import { limitRate } from './steps/limit-rate.js';
import { readBody } from './steps/read-body.js';
import type { RequestState, Step } from './steps/request-state.js';
import { respond } from './steps/respond.js';
import { validate } from './steps/validate.js';

export interface PipelineDependencies {
  callers: CallerResolver;
  rateLimits: RateLimits;
  tmpDir: string;
}

export function pipelineFor(route: AnyRoute, deps: PipelineDependencies): Step[] {
  const steps: Step[] = [];
  if (route.auth !== 'public') steps.push(authenticate(deps.callers));
  if (!route.skipRateLimit) steps.push(limitRate(deps.rateLimits));
  if (route.permission) steps.push(authorise(route.permission));
  if (route.body || route.multipart) steps.push(readBody(deps.tmpDir));
  steps.push(validate, handle, respond);
  return steps;
}

export async function runPipeline(steps: Step[], state: RequestState): Promise<void> {
  for (const step of steps) await step.run(state);
}

// The handler's result as the answer: the success envelope, a raw JSON body, or 204.
import type { z } from 'zod';
import { successBody } from '../envelope.js';
import { JsonText } from '../../src/shared/json-text.js';
import type { RequestState, Step } from './request-state.js';

export const respond: Step = {
  name: 'respond',
  run: (state) => {
    const result = state.result;
    if (!result) throw new Error('the respond step runs after handle');
    // The rate-limit headers, and the result's own over them (merged only when it has some).
    const headers = result.headers ? Object.assign({}, state.rateHeaders, result.headers) : state.rateHeaders;
    if ('empty' in result) {
      state.exchange.send(204, headers, null);
      return;
    }
    const status = result.status ?? state.route.successStatus ?? 200;
    // In test runs only: an answer that its route's declaration (which the OpenAPI document and
    // the typed client are made from) does not describe fails the request, so whichever test
    // reaches the route shows the wrong declaration. Production never pays for this.
    const checking = state.app.config.NODE_ENV === 'test';
    if ('raw' in result) {
      if (checking) checkDeclared(state, 'responseBody', state.route.responseBody, result.raw);
      state.exchange.sendJson(status, result.raw, headers);
      return;
    }
    const body = successBody(result.data, result.message);
    if (checking) checkDeclared(state, 'responseData', state.route.responseData, body.data);
    if (body.data instanceof JsonText) {
      // Serialised once, when the read model kept it: only the envelope around it is written.
      state.exchange.sendJsonText(status, `{"success":true,"message":${JSON.stringify(body.message)},"data":${body.data.text}}`, headers);
      return;
    }
    state.exchange.sendJson(status, body, headers);
  },
};

function checkDeclared(state: RequestState, field: string, schema: z.ZodType | undefined, value: unknown): void {
  if (!schema) return;
  // What the client reads is the JSON text (dates as strings, undefined fields gone), so that is
  // what is checked.
  const sent: unknown = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  const checked = schema.safeParse(sent);
  if (checked.success) return;
  const route = `${state.route.method} ${state.route.path}`;
  const problem = `${route}: the answer does not match the route's ${field}`;
  state.app.log.error({ route, issues: checked.error.issues }, problem);
  // Test servers usually log nothing (LOG_LEVEL=silent): the failing test's output still names it.
  console.error(problem, JSON.stringify(checked.error.issues));
  throw new Error(problem);
}

// The handler's result as the answer: the success envelope, a raw JSON body, or 204.
import { successBody } from '../envelope.js';
import type { Step } from './request-state.js';

export const respond: Step = {
  name: 'respond',
  run: (state) => {
    const result = state.result;
    if (!result) throw new Error('the respond step runs after handle');
    const headers = { ...state.rateHeaders, ...(result.headers ?? {}) };
    if ('empty' in result) {
      state.exchange.send(204, headers, null);
      return;
    }
    const status = result.status ?? state.route.successStatus ?? 200;
    state.exchange.sendJson(status, 'raw' in result ? result.raw : successBody(result.data, result.message), headers);
  },
};

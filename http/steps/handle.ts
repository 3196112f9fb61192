// The route's handler: the domain operation, through its service.
import type { Step } from './request-state.js';

export const handle: Step = {
  name: 'handle',
  run: async (state) => {
    if (!state.context) throw new Error('the handle step runs after validate');
    state.result = await state.route.handler(state.context);
  },
};

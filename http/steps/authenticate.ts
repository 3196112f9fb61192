// Who is calling: the bearer token's live session, resolved to a caller with its permissions.
// `user` routes require one; `optional` routes use one when sent (a bad one is still 401).
import type { CallerResolver } from '../../src/auth/caller.js';
import { unauthorized } from '../../src/shared/errors.js';
import type { Step } from './request-state.js';

export function authenticate(callers: CallerResolver): Step {
  return {
    name: 'authenticate',
    run: async (state) => {
      const authorization = state.exchange.headers.authorization ?? '';
      const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
      if (bearer) state.caller = await callers.resolve(bearer);
      else if (state.route.auth === 'user') {
        throw unauthorized(authorization ? 'auth.error.invalid_token' : 'auth.error.missing_token', 'A bearer access token is required');
      }
    },
  };
}

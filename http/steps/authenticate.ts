// Who is calling: the bearer token's live session, resolved to a caller with its permissions.
// `user` routes require one; `optional` routes use one when sent (a bad one is still 401).
import type { Caller, CallerResolver } from '../../src/auth/index.js';
import { unauthorized } from '../../src/shared/errors.js';
import type { Step } from './request-state.js';

export function authenticate(callers: CallerResolver): Step {
  return {
    name: 'authenticate',
    run: async (state) => {
      state.caller = await callerOf(callers, state.exchange.headers.authorization, state.route.auth === 'user');
    },
  };
}

/** The caller of an `Authorization: Bearer` header; none sent: null, or 401 when `required`. */
export async function callerOf(callers: CallerResolver, authorization: string | undefined, required: boolean): Promise<Caller | null> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (bearer) return callers.resolve(bearer);
  if (required) throw unauthorized(authorization ? 'auth.error.invalid_token' : 'auth.error.missing_token', 'A bearer access token is required');
  return null;
}

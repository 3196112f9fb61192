// The route's permission: held by the caller's role, else 403 (401 without a caller).
import { requirePermission } from '../../src/auth/index.js';
import { unauthorized } from '../../src/shared/errors.js';
import type { Step } from './request-state.js';

export function authorise(permission: string): Step {
  return {
    name: 'authorise',
    run: (state) => {
      if (!state.caller) throw unauthorized('auth.error.missing_token', 'A bearer access token is required');
      requirePermission(state.caller, permission);
    },
  };
}

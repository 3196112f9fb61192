// The services every part of the service shares (built once at start-up): tokens, sessions,
// accounts, role permissions and caller resolution. Domain modules build their own services
// from the AppContext and, where needed, these.
import type { AppContext } from './context.js';
import { AccountService } from './auth/accounts.js';
import { CallerResolver } from './auth/caller.js';
import { SessionService } from './auth/sessions.js';
import { TokenService } from './auth/tokens.js';
import { RolePermissions } from './authorization/role-permissions.js';
import { TwoFactorService } from './twofactor/service.js';

export interface CoreServices {
  tokens: TokenService;
  sessions: SessionService;
  accounts: AccountService;
  rolePermissions: RolePermissions;
  callers: CallerResolver;
  twoFactor: TwoFactorService;
}

export async function createCoreServices(app: AppContext): Promise<CoreServices> {
  const tokens = await TokenService.create(app.database, app.config.JWT_SECRET, app.config.ACCESS_TOKEN_TTL);
  const sessions = new SessionService(app);
  const rolePermissions = new RolePermissions(app.database);
  const twoFactor = new TwoFactorService(app);
  const accounts = new AccountService(app, tokens, sessions, twoFactor);
  const callers = new CallerResolver(app.database, tokens, rolePermissions, app.events);
  return { tokens, sessions, accounts, rolePermissions, callers, twoFactor };
}

// A small HTTP client for tests, and the account flows most tests start from.
import fs from 'node:fs';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { ADMIN_PASSWORD, ADMIN_PHONE, type TestServer } from './server.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is (a string, Buffer or FormData) instead of JSON. */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  token?: string | null;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null = null,
  ) {}

  withToken(token: string | null): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  async request<T = any>(method: string, urlPath: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + urlPath, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(p: string, o?: RequestOptions) {
    return this.request<T>('GET', p, o);
  }
  post<T = any>(p: string, body?: unknown, o: RequestOptions = {}) {
    return this.request<T>('POST', p, { ...o, body });
  }
  put<T = any>(p: string, body?: unknown, o: RequestOptions = {}) {
    return this.request<T>('PUT', p, { ...o, body });
  }
  delete<T = any>(p: string, o?: RequestOptions) {
    return this.request<T>('DELETE', p, o);
  }
}

export interface OutboxEntry {
  to: string;
  purpose: string;
  code: string;
  body: string;
  at: string;
}

export function readOutbox(server: TestServer): OutboxEntry[] {
  const file = path.join(server.dataDir, 'sms-outbox.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The newest code sent to `phone` (E.164) for `purpose`. */
export function lastCode(server: TestServer, phone: string, purpose?: string): string {
  const entries = readOutbox(server).filter((e) => e.to === phone && (!purpose || e.purpose === purpose));
  if (!entries.length) throw new Error(`no SMS to ${phone}${purpose ? ` for ${purpose}` : ''}`);
  return entries[entries.length - 1].code;
}

/** A random valid Vietnamese mobile number in E.164. */
export const uniquePhone = (): string => `+8490${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
let usernameCounter = 0;
export const uniqueUsername = (prefix = 'user'): string => `${prefix}${Date.now().toString(36)}${(usernameCounter++).toString(36)}${randomInt(0, 1000)}`;

export interface TestUser {
  userId: string;
  username: string;
  phone: string;
  password: string;
  token: string;
  refreshToken: string;
  sessionId: string;
  api: ApiClient;
}

/** Registers, verifies and logs in a fresh user. */
export async function registerAndLogin(
  server: TestServer,
  overrides: Partial<{ username: string; phone: string; password: string; given_name: string; family_name: string }> = {},
): Promise<TestUser> {
  const api = new ApiClient(server.url);
  const phone = overrides.phone ?? uniquePhone();
  const username = overrides.username ?? uniqueUsername();
  const password = overrides.password ?? 'password-123';
  const reg = await api.post('/auth/api/v1/register', {
    username,
    password,
    phone_number: phone,
    given_name: overrides.given_name ?? 'Test',
    family_name: overrides.family_name ?? 'User',
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const verify = await api.post('/auth/api/v1/verify-otp', { phone_number: phone, otp: lastCode(server, phone, 'register') });
  if (verify.status !== 200) throw new Error(`verify failed: ${verify.status} ${verify.text}`);
  return login(server, phone, password);
}

export async function login(server: TestServer, phone: string, password: string): Promise<TestUser> {
  const api = new ApiClient(server.url);
  const res = await api.post('/auth/api/v1/login', { phone_number: phone, password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  const d = res.body.data;
  return {
    userId: d.user.sub,
    username: d.user.username,
    phone,
    password,
    token: d.AccessToken,
    refreshToken: d.RefreshToken,
    sessionId: d.SessionId,
    api: api.withToken(d.AccessToken),
  };
}

/** The administrator seeded from ADMIN_PHONE_NUMBER / ADMIN_PASSWORD. */
export const loginAdmin = (server: TestServer): Promise<TestUser> => login(server, ADMIN_PHONE, ADMIN_PASSWORD);

/** Asserts the SPEC §7 error envelope and returns it. */
export function expectErrorEnvelope(res: ApiResponse, status: number, codePrefix?: string) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  const b = res.body;
  if (
    b?.success !== false ||
    typeof b.error_code !== 'string' ||
    !/^[a-z_]+\.error\.[a-z_]+$/.test(b.error_code) ||
    typeof b.message !== 'string' ||
    typeof b.timestamp !== 'string'
  ) {
    throw new Error(`not an error envelope: ${res.text}`);
  }
  if (codePrefix && !b.error_code.startsWith(codePrefix)) throw new Error(`expected error_code ${codePrefix}…, got ${b.error_code}`);
  return b as { success: false; error_code: string; message: string; details?: { field: string; constraint: string }; timestamp: string };
}

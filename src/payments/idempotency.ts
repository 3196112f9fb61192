// Idempotency-Key handling for requests that move money. The key row is written in the same
// transaction as the charge, so:
// - a replay of a committed request (same user, key and body) finds the stored answer and
//   nothing is charged again;
// - a concurrent duplicate waits on the row lock of the first insert and then sees its answer;
// - a failed request (declined card, validation error) rolls its key back, so the client may
//   retry with the same key;
// - the same key with another body (or on another endpoint) is 409 `idempotency.error.key_reused`.
import { sql } from 'drizzle-orm';
import { badRequest, conflict } from '../shared/errors.js';
import { sha256 } from '../shared/ids.js';
import { rowsOf, type SqlExecutor } from './sql-rows.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The header's value, validated: printable ASCII, 1-255 characters. Missing → null. */
export function readIdempotencyKey(headers: Record<string, string>): string | null {
  const value = headers[IDEMPOTENCY_HEADER];
  if (value === undefined || value === '') return null;
  if (!KEY_PATTERN.test(value)) {
    throw badRequest('idempotency.error.invalid_key', 'Idempotency-Key must be 1-255 printable ASCII characters', {
      field: 'Idempotency-Key',
      constraint: '1-255 printable ASCII characters',
    });
  }
  return value;
}

/** JSON with object keys sorted, so two equal bodies hash alike whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface StoredResponse<T> {
  status: number;
  body: T;
}

export interface IdempotencyClaim {
  userId: string;
  key: string;
  scope: string;
  requestBody: unknown;
}

/**
 * Claims the key inside `tx`. Returns the stored answer when this request was already served,
 * or null when the caller should do the work (and then `rememberResponse` in the same transaction).
 */
export async function claimIdempotencyKey<T>(tx: SqlExecutor, claim: IdempotencyClaim): Promise<StoredResponse<T> | null> {
  const hash = sha256(`${claim.scope}\n${canonicalJson(claim.requestBody)}`);
  const inserted = await rowsOf<{ key: string }>(
    tx,
    sql`insert into idempotency_keys (user_id, key, scope, request_hash)
        values (${claim.userId}, ${claim.key}, ${claim.scope}, ${hash})
        on conflict (user_id, key) do nothing
        returning key`,
  );
  if (inserted.length) return null;
  const [existing] = await rowsOf<{ request_hash: string; response_status: number | null; response_body: T | null }>(
    tx,
    sql`select request_hash, response_status, response_body from idempotency_keys
        where user_id = ${claim.userId} and key = ${claim.key}`,
  );
  if (!existing || existing.request_hash !== hash || existing.response_status === null) {
    throw conflict('idempotency.error.key_reused', 'This Idempotency-Key was already used for a different request', {
      field: 'Idempotency-Key',
      constraint: 'one request per key',
    });
  }
  return { status: existing.response_status, body: existing.response_body as T };
}

export async function rememberResponse(tx: SqlExecutor, userId: string, key: string, response: StoredResponse<unknown>): Promise<void> {
  await tx.execute(
    sql`update idempotency_keys set response_status = ${response.status}, response_body = ${JSON.stringify(response.body)}::jsonb
        where user_id = ${userId} and key = ${key}`,
  );
}

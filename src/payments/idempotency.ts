// Idempotency-Key handling for requests that move money. The key row is written in the same
// transaction as the charge, so:
// - a replay of a committed request (same user, key and body) finds the stored answer and
//   nothing is charged again;
// - a concurrent duplicate waits on the row lock of the first insert and then sees its answer;
// - a failed request (declined card, validation error) rolls its key back, so the client may
//   retry with the same key;
// - the same key with another body (or on another endpoint) is 409 `idempotency.error.key_reused`.
import { conflict } from '../shared/errors.js';
import { sha256 } from '../shared/ids.js';
import type { IdempotencyRepository } from './idempotency-repository.js';

/** JSON with object keys sorted, so two equal bodies hash alike whatever their key order. */
function canonicalJson(value: unknown): string {
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
  data: T;
}

/** What a money-moving request answers. */
export interface ServiceAnswer<T> extends StoredResponse<T> {
  /** True when the answer is the stored one of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export interface IdempotencyClaim {
  userId: string;
  /** The request's Idempotency-Key (its format checked by the route); undefined when it sent none, and the work then simply runs. */
  key: string | undefined;
  /** The endpoint (and target), so one key cannot serve two kinds of request. */
  scope: string;
  requestBody: unknown;
}

/**
 * Runs `run` once per (user, key) in the transaction `keys` is bound to: claims the key first,
 * answers the stored response of a request already served, and stores the new answer in the same
 * transaction as its work.
 */
export async function withIdempotency<T>(
  keys: IdempotencyRepository,
  claim: IdempotencyClaim,
  run: () => Promise<StoredResponse<T>>,
): Promise<ServiceAnswer<T>> {
  if (claim.key === undefined) return { ...(await run()), replayed: false };
  const hash = sha256(`${claim.scope}\n${canonicalJson(claim.requestBody)}`);
  if (!(await keys.insert(claim.userId, claim.key, claim.scope, hash))) {
    const existing = await keys.find(claim.userId, claim.key);
    if (!existing || existing.request_hash !== hash || existing.response_status === null) {
      throw conflict('idempotency.error.key_reused', 'This Idempotency-Key was already used for a different request', {
        field: 'Idempotency-Key',
        constraint: 'one request per key',
      });
    }
    return { status: existing.response_status, data: existing.response_body as T, replayed: true };
  }
  const answer = await run();
  await keys.storeResponse(claim.userId, claim.key, answer.status, answer.data);
  return { ...answer, replayed: false };
}

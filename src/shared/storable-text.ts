// Text that PostgreSQL can store, checked where input enters (HTTP bodies, query strings, path
// parameters, file names, socket payloads), so no driver sees anything else: a NUL character
// (U+0000) cannot be stored in text or jsonb at all, so input holding one is refused with a 400
// naming the field; a lone UTF-16 surrogate has no UTF-8 form (PGlite mis-encoded one, and jsonb
// refuses its JSON escape in both modes), so it becomes U+FFFD.
import { AppError } from './errors.js';

const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const wellFormed = (text: string) => text.replace(LONE_SURROGATE, '\ufffd');

/** No request of the API nests deeper; deeper input is refused before anything walks it. */
const MAX_DEPTH = 32;

function refuseNul(part: string, path: string[]): AppError {
  const field = path.length ? path.join('.') : part;
  return new AppError(400, `validation.error.invalid_${part}`, `Invalid ${part}: ${field} contains a NUL character`, {
    field,
    constraint: 'no NUL (U+0000) characters',
  });
}

/** A UTF-16 surrogate, lone or not: text without one needs no repair (the usual case). */
const ANY_SURROGATE = /[\ud800-\udfff]/;

/**
 * Whether `value` holds anything to refuse or repair (a NUL, a surrogate, nesting deeper than
 * allowed), without copying anything: most input holds none, and is then used as it is.
 */
function needsWork(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return true;
  if (typeof value === 'string') return value.includes(NUL) || ANY_SURROGATE.test(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => needsWork(item, depth + 1));
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.includes(NUL) || ANY_SURROGATE.test(key) || needsWork((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * `value` with every string (keys included) made storable; throws 400 on a NUL character. Input
 * with nothing to refuse or repair is returned as it is (the parts of a request are fresh objects
 * of their own: parsed JSON, the query string's entries, the path parameters).
 */
export function storableText(value: unknown, part: string, path: string[] = []): unknown {
  if (path.length === 0 && !needsWork(value, 0)) return value;
  return repaired(value, part, path);
}

function repaired(value: unknown, part: string, path: string[]): unknown {
  if (path.length > MAX_DEPTH) {
    throw new AppError(400, `validation.error.invalid_${part}`, `Invalid ${part}: nested deeper than ${MAX_DEPTH} levels`, {
      field: path.slice(0, MAX_DEPTH).join('.'),
      constraint: `at most ${MAX_DEPTH} levels of nesting`,
    });
  }
  if (typeof value === 'string') {
    if (value.includes(NUL)) throw refuseNul(part, path);
    return wellFormed(value);
  }
  if (Array.isArray(value)) return value.map((item, i) => repaired(item, part, [...path, String(i)]));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines each key as an own property, `__proto__` included (an assignment would
    // set the prototype instead).
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        if (key.includes(NUL)) throw refuseNul(part, path);
        return [wellFormed(key), repaired(item, part, [...path, key])];
      }),
    );
  }
  return value;
}

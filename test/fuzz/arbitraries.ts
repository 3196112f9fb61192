// fast-check generators for the fuzz test: hostile scalar values, values that follow a JSON
// Schema from the OpenAPI document (so that requests get past validation and reach the domain
// code), and mutations that break such values in one or a few places.
import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

/** Values the test knows to exist on the server (ids of users, content, rooms, ...). */
export interface KnownValues {
  ids: string[];
  usernames: string[];
  phones: string[];
}

/** Strings that have broken parsers, databases and renderers before. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\udc00\ud800',
  '\u202e\u202dabc\u202c',
  '\u200f\u200e\u061c',
  '\u200b\u200c\u200d\ufeff',
  '🏠👨‍👩‍👧‍👦🇻🇳',
  'e\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308',
  'Z̸̡̢̛̗̘̙̜̝̞̟̠̤̥̦̩̪̫̬̭̮̯̰̱̲̳̹̺̻̼͇͈͉͍͎̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓̔̽̾̿̀́͂̓̈́͆͊͋͌̕̚ͅ͏͓͔͕͖͙͚͐͑͒͗͛ͣͤͥͦͧͨͩͪͫͬͭͮͯ͘͜͟͢͝͞͠͡',
  '\r\n',
  '\t\v\f\b',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '\\',
  '%',
  '%00',
  '%s%s%n',
  '../../../../etc/passwd',
  '..\\..\\windows',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '-1',
  '0',
  '9'.repeat(400),
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10,\nfile:///etc/passwd',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '2026-02-30',
  '9999-12-31T23:59:59Z',
  '-000001-01-01',
  'Bearer',
  '\uffff\ufffe',
  '\u{10ffff}',
];

/** Any single UTF-16 code unit, lone surrogates and control characters included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** Short strings of any code units. */
const oddString = fc.array(anyCodeUnit, { maxLength: 40 }).map((a) => a.join(''));

/** Long strings (1 KB – 100 KB) made of a repeated piece, so the generator itself stays cheap. */
const hugeString = fc
  .tuple(fc.constantFrom('a', 'é', '🏠', '\u0000', 'e\u0301', '\ud800', ' ', '%'), fc.integer({ min: 1024, max: 100 * 1024 }))
  .map(([piece, n]) => piece.repeat(Math.ceil(n / piece.length)));

/** Hostile strings short enough for a request line or a header. */
export const hostileShortString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: oddString },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);

export const hostileString: fc.Arbitrary<string> = fc.oneof({ weight: 9, arbitrary: hostileShortString }, { weight: 1, arbitrary: hugeString });

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.5, -1e308, 1e308, 5e-324, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), Number.MAX_SAFE_INTEGER, 1e21),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A value of the wrong kind: anything JSON can hold. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: hostileString },
    { weight: 2, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.oneof(fc.constantFrom('__proto__', 'constructor', ''), fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 4 }),
    },
    // Deep nesting: a stack-hungry validator or serializer falls over here.
    {
      weight: 1,
      arbitrary: fc.integer({ min: 50, max: 1000 }).map((d) => {
        let v: unknown = 1;
        for (let i = 0; i < d; i++) v = [v];
        return v;
      }),
    },
  ),
})).value;

const uuidLike = fc.oneof(
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.constantFrom('00000000-0000-0000-0000-000000000000'),
);

function idValue(known: KnownValues): fc.Arbitrary<string> {
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known.ids) }, { weight: 1, arbitrary: uuidLike });
}

function stringFor(schema: JsonSchema, name: string, known: KnownValues): fc.Arbitrary<string> {
  if (/(^id$|Id$|_id$|Ids$|_ids$)/.test(name) || schema.format === 'uuid') return idValue(known);
  if (/phone/i.test(name)) return fc.oneof(fc.constantFrom(...known.phones), fc.stringMatching(/^\+84(9|3)\d{8}$/));
  if (/username/i.test(name)) return fc.constantFrom(...known.usernames);
  if (/currency|unit_price/.test(name)) return fc.constantFrom('VND', 'USD', 'KRW', 'vnd', 'XXX');
  if (/date/.test(name))
    return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  if (/token/.test(name)) return fc.constantFrom('tok_visa', 'tok_decline', 'tok_insufficient', 'tok_', 'card_4242');
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 10_000));
    } catch {
      /* a pattern JavaScript cannot compile: fall through to plain strings */
    }
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 60));
  return fc.string({ minLength, maxLength, unit: fc.constantFrom(...[...'abcxyz019 _-éàộ한국🏠']) });
}

function numberFor(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : -1e6);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : 1e9);
  if (integer) {
    const lo = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
    const hi = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
    return fc.oneof(fc.integer({ min: Math.max(lo, -1e6), max: Math.min(hi, Math.max(lo, -1e6) + 1000) }), fc.constantFrom(lo, hi));
  }
  return fc.oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max));
}

/** Field rules the schema cannot express (refinements), known by the field's name. */
function hintFor(schema: JsonSchema, name: string, known: KnownValues): fc.Arbitrary<unknown> | null {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') {
    if (name === 'unit_area') return fc.constantFrom('m2', 'sqft', 'm²', 'sqm', 'ft²', 'sq ft');
    if (/currency|unit_price/.test(name)) return fc.constantFrom('VND', 'VND', 'USD', 'KRW');
    if (name === 'username') return fc.oneof(fc.constantFrom(...known.usernames), fc.stringMatching(/^[a-z][a-z0-9._-]{2,20}$/));
    if (/password/.test(name)) return fc.oneof(fc.constant('password-123'), fc.string({ minLength: 8, maxLength: 40 }));
  }
  if (type === 'integer' && /^duration(_days)?$/.test(name)) return fc.constantFrom(1, 3, 7, 14, 30);
  if ((type === 'number' || type === 'integer') && name === 'amount') return fc.constantFrom(500_000, 1_000_000, 2_000_000, 1_050_000);
  return null;
}

/** Values that satisfy `schema` as far as a simple generator can (enums, bounds, required keys). */
export function valid(schema: JsonSchema | undefined, known: KnownValues, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6 || Object.keys(schema).length === 0) return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  const hint = hintFor(schema, name, known);
  if (hint) return hint;
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s: JsonSchema) => valid(s, known, name, depth + 1)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((t: string) => valid({ ...schema, type: t }, known, name, depth + 1)));
  switch (schema.type) {
    case 'string':
      return stringFor(schema, name, known);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (Array.isArray(schema.prefixItems)) return fc.tuple(...schema.prefixItems.map((s: JsonSchema) => valid(s, known, name, depth + 1)));
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, 3));
      return fc.array(valid(schema.items, known, name, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const props: Record<string, JsonSchema> = schema.properties ?? {};
      if (!Object.keys(props).length) return fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 });
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) record[k] = valid(s, known, k, depth + 1);
      return fc.record(record, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer());
  }
}

/** One change to a JSON value: at the `target`-th node (modulo the node count), do `kind`. */
export interface Mutation {
  target: number;
  /** `poison` puts a NUL or a lone surrogate inside a string that is otherwise valid. */
  kind: 'replace' | 'delete' | 'add' | 'poison';
  key: string;
  value: unknown;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  target: fc.nat(),
  kind: fc.constantFrom('replace', 'replace', 'delete', 'add', 'poison', 'poison'),
  key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'role', 'is_admin', 'uploader_id', 'status', 'id', ''), hostileShortString),
  value: hostileValue,
});

/** Applies mutations to a deep copy of `value` (which is not changed). */
export function applyMutations(value: unknown, mutations: Mutation[]): unknown {
  let root: unknown = structuredClone(value);
  for (const m of mutations) {
    // Every container and every slot in it, root first.
    const slots: { parent: any; key: string | number | null }[] = [{ parent: null, key: null }];
    // Iterative: the values themselves may be nested thousands deep.
    const stack: unknown[] = [root];
    while (stack.length) {
      const v = stack.pop();
      if (Array.isArray(v))
        v.forEach((item, i) => {
          slots.push({ parent: v, key: i });
          stack.push(item);
        });
      else if (v && typeof v === 'object')
        for (const k of Object.keys(v)) {
          slots.push({ parent: v, key: k });
          stack.push((v as any)[k]);
        }
    }
    const slot = slots[m.target % slots.length];
    const current = slot.parent === null ? root : slot.parent[slot.key!];
    if (m.kind === 'poison') {
      const poison = ['\u0000', '\ud800', '\u0000', '\udfff'][m.target % 4];
      const poisoned = typeof current === 'string' ? current.slice(0, 1) + poison + current.slice(1) : `x${poison}y`;
      if (slot.parent === null) root = poisoned;
      else slot.parent[slot.key!] = poisoned;
    } else if (m.kind === 'add' && current && typeof current === 'object') {
      if (Array.isArray(current)) current.push(m.value);
      else Object.defineProperty(current, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    } else if (m.kind === 'delete' && slot.parent !== null) {
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete slot.parent[slot.key!];
    } else if (slot.parent === null) {
      root = m.value;
    } else {
      slot.parent[slot.key!] = m.value;
    }
  }
  return root;
}

/** A value for `schema` that is valid, or valid with a few things broken, or of another kind. */
export function fuzzValue(schema: JsonSchema | undefined, known: KnownValues): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 2, arbitrary: valid(schema, known) },
    { weight: 5, arbitrary: fc.tuple(valid(schema, known), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([v, ms]) => applyMutations(v, ms)) },
    { weight: 1, arbitrary: hostileValue },
  );
}

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD, as on any wire). */
export function percentEncode(s: string, keep = /[A-Za-z0-9\-._~]/): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && keep.test(ch) ? ch : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Raw request-target text for one path segment or query value, encoded or deliberately not. */
export function rawComponent(known: KnownValues): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: idValue(known) },
    { weight: 4, arbitrary: hostileShortString.map((s) => percentEncode(s)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2F',
        'a%2Fb',
        '..%2F..%2Fetc%2Fpasswd',
        '%00',
        '%zz',
        '%E0%A4%A',
        '%ED%A0%80',
        '%C0%AF',
        '%FF%FE',
        '%',
        '%25',
        '%u0041',
        'null',
        '-1',
        '0',
        '1e3',
        'me',
        'others',
        '*',
        '~',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 8000 }).map((n) => 'a'.repeat(n)) },
    // Raw bytes above 0x7f, not percent-encoded (uWS passes them through).
    { weight: 1, arbitrary: fc.constantFrom('\xff\xfe', '\xc3\xa9', '\xed\xa0\x80', '\xf0\x9f\x8f\xa0') },
  );
}

/** A header value: any string squeezed into what HTTP/1.1 lets a header carry (no CTLs). */
export function headerSafe(s: string): string {
  return (
    Buffer.from(s, 'utf8')
      .toString('latin1')
      // eslint-disable-next-line no-control-regex -- control characters are what this takes out
      .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '?')
      .trim()
      .slice(0, 6000)
  );
}

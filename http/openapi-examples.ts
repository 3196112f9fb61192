// Example values for the OpenAPI document, made from the JSON Schema that zod produces for a
// request body, so a route gets a realistic example without writing one (a route may still give
// its own `example`). Strings are picked from a short list of plausible values, by the field's
// name and format first, and kept only when they satisfy the schema's pattern and lengths; a
// schema nothing fits gives no example (the docs test names the route that needs one).

type JsonSchema = Record<string, unknown>;

const SAMPLE_UUID = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
const SAMPLE_URL = 'https://example.com/image.jpg';

/** Values tried for a string, by field name; the generic list follows them. */
const NAME_HINTS: [RegExp, string[]][] = [
  [/phone/i, ['+84901234567']],
  [/given_name/i, ['An']],
  [/family_name/i, ['Nguyen']],
  [/endpoint$/i, ['https://push.example.com/send/3f2b8c1e']],
  [/new_password/i, ['New-secret-2027']],
  [/password/i, ['Secret-pass-2026']],
  [/email/i, ['user@example.com']],
  [/username/i, ['nguyen_an']],
  [/(^|_)(otp|code)$|verification/i, ['123456']],
  [/latitude/i, ['10.7769']],
  [/longitude/i, ['106.7009']],
  [/date/i, ['2026-01-15']],
  [/(url|link|avatar|image|picture|thumbnail)$/i, [SAMPLE_URL]],
  [/(^id|_id|Id)$/, [SAMPLE_UUID]],
  [/(unit_price|currency)$/i, ['VND']],
  [/unit_area$/i, ['m2']],
  [/lang/i, ['vi']],
  [/emoji/i, ['👍']],
  [/hashtag|^tags?$/i, ['#realestate']],
  [/permission/i, ['read:content']],
  [/role/i, ['editor']],
  [/(^|_)age/i, ['18-24']],
  [/file_?name/i, ['photo.jpg']],
  [/(^name|_name|title)$/i, ['Nguyen Van An']],
  [/(msg|message|text|description|comment|content|caption|reason|search)$/i, ['Is this apartment still available?']],
  [/p256dh/i, ['BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM']],
  [/auth$/i, ['tBHItJI5svbpez7KI4CCXg']],
];

const GENERIC_STRINGS = [
  'example',
  '123456',
  '1',
  '18-24',
  'photo.jpg',
  '#realestate',
  'read:content',
  SAMPLE_UUID,
  'user@example.com',
  SAMPLE_URL,
  '2026-01-15',
  '10.7769',
];

const FORMAT_SAMPLES: Record<string, string> = {
  email: 'user@example.com',
  uri: SAMPLE_URL,
  url: SAMPLE_URL,
  uuid: SAMPLE_UUID,
  'date-time': '2026-01-15T09:30:00.000Z',
  date: '2026-01-15',
  time: '09:30:00',
};

/** Numbers by field name (kept only when inside the bounds). */
const NUMBER_HINTS: [RegExp, number][] = [
  [/latitude/i, 10.7769],
  [/longitude/i, 106.7009],
  [/zoom/i, 14],
  [/(per_page|limit|page_size)$/i, 20],
  [/price|amount|budget/i, 2500000000],
  [/area/i, 75],
  [/(days|duration)$/i, 7],
];

function matches(pattern: string, value: string): boolean {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags).test(value);
    } catch {
      // try without the unicode flag
    }
  }
  return true;
}

function stringExample(schema: JsonSchema, name: string): string | undefined {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : null;
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  const hinted = NAME_HINTS.filter(([re]) => re.test(name)).flatMap(([, values]) => values);
  const candidates = [...(format ? [format] : []), ...hinted, ...GENERIC_STRINGS];
  const fits = (v: string) => [...v].length >= minLength && [...v].length <= maxLength && (!pattern || matches(pattern, v));
  const found = candidates.find(fits);
  if (found !== undefined) return found;
  // Length bounds alone: a run of letters of the smallest length allowed.
  const filler = 'x'.repeat(Math.max(minLength, 1));
  return fits(filler) ? filler : undefined;
}

function numberExample(schema: JsonSchema, name: string, integer: boolean): number | undefined {
  const min =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + (integer ? 1 : 0.5)
        : -Infinity;
  const max =
    typeof schema.maximum === 'number'
      ? schema.maximum
      : typeof schema.exclusiveMaximum === 'number'
        ? schema.exclusiveMaximum - (integer ? 1 : 0.5)
        : Infinity;
  const hint = NUMBER_HINTS.find(([re]) => re.test(name))?.[1];
  const candidates = [hint, 1, min, max].filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const step = typeof schema.multipleOf === 'number' ? schema.multipleOf : null;
  return candidates
    .map((v) => (integer ? Math.round(v) : v))
    .map((v) => (step ? Math.ceil(v / step) * step : v))
    .find((v) => v >= min && v <= max);
}

const MAX_DEPTH = 8;

/** An example value satisfying `schema` (JSON Schema as zod emits it), or undefined when none is found. */
export function exampleFor(schema: JsonSchema, name = '', depth = 0): unknown {
  if (depth > MAX_DEPTH) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('default' in schema && schema.default !== undefined) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) {
    const concrete = branches.filter((b) => b.type !== 'null');
    for (const branch of concrete) {
      const value = exampleFor(branch, name, depth + 1);
      if (value !== undefined) return value;
    }
    return branches.some((b) => b.type === 'null') ? null : undefined;
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return exampleFor(schema.allOf[0] as JsonSchema, name, depth + 1);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined);
  switch (type) {
    case 'object':
      return objectExample(schema, depth);
    case 'array': {
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      if (typeof schema.maxItems === 'number' && schema.maxItems < count) return typeof schema.minItems === 'number' ? undefined : [];
      const item = exampleFor((schema.items as JsonSchema | undefined) ?? {}, name.replace(/s$/, ''), depth + 1);
      return item === undefined ? undefined : Array.from({ length: count }, () => item);
    }
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      return numberExample(schema, name, true);
    case 'number':
      return numberExample(schema, name, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      // A schema without a type (zod's unknown or any): an empty object is the least surprising.
      return schema.properties ? objectExample(schema, depth) : {};
  }
}

function objectExample(schema: JsonSchema, depth: number): Record<string, unknown> | undefined {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const value = exampleFor(property, key, depth + 1);
    if (value === undefined) {
      // An optional field nothing fits is left out; a required one leaves the object without example.
      if (required.has(key)) return undefined;
      continue;
    }
    out[key] = value;
  }
  return out;
}

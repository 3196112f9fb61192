// Turns one OpenAPI operation into a generator of hostile requests (path parameters, query,
// headers, auth, JSON or multipart body and its framing), and a generated case into the exact
// bytes to write on the socket.
import fc from 'fast-check';
import {
  fuzzValue,
  headerSafe,
  hostileShortString,
  hostileString,
  percentEncode,
  rawComponent,
  valid,
  type JsonSchema,
  type KnownValues,
} from './arbitraries.js';
import type { RawRequest } from './raw-http.js';

export interface Operation {
  id: string;
  method: string;
  /** OpenAPI path with `{name}` parameters. */
  path: string;
  spec: JsonSchema;
}

export type AuthMode = 'none' | 'user' | 'admin' | 'garbage';

/** Ways to send a bearer header that must not authenticate. Resolved with real tokens at send time. */
export const GARBAGE_AUTH = [
  'bad-signature',
  'no-signature',
  'alg-none',
  'two-tokens',
  'refresh-as-access',
  'hostile',
  'very-long',
  'wrong-scheme',
  'empty-bearer',
  'lowercase-scheme',
] as const;
export type GarbageAuth = (typeof GARBAGE_AUTH)[number];

export interface MultipartPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  data: Uint8Array;
  /** No part headers at all. */
  headerless: boolean;
}

export const MULTIPART_FRAMINGS = [
  'complete',
  'cut-mid-file',
  'no-boundary-param',
  'wrong-boundary',
  'repeated-boundary',
  'preamble-only',
  'empty-body',
  'chunked',
  'chunked-cut',
  'short-then-hangup',
  'chunked-then-hangup',
] as const;
export type MultipartFraming = (typeof MULTIPART_FRAMINGS)[number];

export type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string | null; framing: 'length' | 'chunked' | 'short-then-hangup' }
  | { kind: 'text'; text: string; contentType: string | null; chunked?: boolean }
  | { kind: 'multipart'; parts: MultipartPart[]; boundary: string; framing: MultipartFraming; cutAt: number };

export interface FuzzCase {
  auth: AuthMode;
  garbage: GarbageAuth;
  garbageText: string;
  pathValues: string[];
  query: string;
  headers: [string, string][];
  body: BodySpec;
}

export interface Tokens {
  bearer: string | null;
  /** A valid access and refresh token to derive garbage from. */
  access: string;
  refresh: string;
}

const JSON_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=abc',
  'application/jsonp',
  'APPLICATION/JSON',
  '',
  'application/json; charset=utf-16',
  'application/json;;;',
  'application/*',
  'image/png',
];

/** A 1x1 PNG, so that image paths reach the decoder, not just the type check. */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const FILE_BODIES: Uint8Array[] = [
  PNG_1X1,
  PNG_1X1.subarray(0, 30),
  Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), Buffer.alloc(200, 7)]),
  Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
  Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1'), Buffer.alloc(40)]),
  Buffer.concat([Buffer.from('BM', 'latin1'), Buffer.alloc(60, 0xff)]),
  Buffer.concat([Buffer.from('0000001866747970697336', 'hex'), Buffer.alloc(300, 1)]),
  Buffer.from('#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n'),
  Buffer.from(
    '<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period><AdaptationSet><Representation><BaseURL>file:///etc/passwd</BaseURL></Representation></AdaptationSet></Period></MPD>',
  ),
  Buffer.from("ffconcat version 1.0\nfile '/etc/passwd'\n"),
  Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
  Buffer.alloc(0),
  Buffer.alloc(64 * 1024, 0),
  // Big enough that busboy is still writing the file when a cut form ends.
  Buffer.alloc(1024 * 1024, 0x41),
];

function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

function queryArbitrary(spec: JsonSchema, known: KnownValues): fc.Arbitrary<string> {
  const params: JsonSchema[] = (spec.parameters ?? []).filter((p: JsonSchema) => p.in === 'query');
  const declared = params.map((p) =>
    fc.option(
      fc.oneof(
        { weight: 3, arbitrary: valid(p.schema, known, p.name).map((v) => `${percentEncode(p.name)}=${percentEncode(String(v))}`) },
        { weight: 2, arbitrary: rawComponent(known).map((v) => `${percentEncode(p.name)}=${v}`) },
        { weight: 1, arbitrary: valid(p.schema, known, p.name).map((v) => `${percentEncode(p.name)}=${percentEncode(String(v))}%00`) },
        { weight: 1, arbitrary: fc.constant(percentEncode(p.name)) },
        {
          weight: 1,
          arbitrary: fc.array(rawComponent(known), { minLength: 2, maxLength: 3 }).map((vs) => vs.map((v) => `${percentEncode(p.name)}=${v}`).join('&')),
        },
      ),
      { freq: 2 },
    ),
  );
  const extras = fc.array(
    fc.oneof(
      fc.tuple(hostileShortString, rawComponent(known)).map(([k, v]) => `${percentEncode(k)}=${v}`),
      fc.constantFrom('=', '&', '==', '%', 'a=%', '__proto__[x]=1', 'constructor=1', 'page=1&page=2', ';x=1'),
    ),
    { maxLength: 3 },
  );
  // Capped well below uWS's limit on a request head (between 100 and 200 KB): past it uWS closes
  // the connection without an answer, before any of our code runs.
  return fc.tuple(fc.tuple(...declared), extras).map(([d, e]) => [...d.filter((x): x is string => x !== null), ...e].join('&').slice(0, 32 * 1024));
}

function headersArbitrary(known: KnownValues): fc.Arbitrary<[string, string][]> {
  const value = (names: string) =>
    fc
      .oneof(
        { weight: 2, arbitrary: fc.constantFrom(...known.ids, ...known.usernames, 'en', 'vi', 'ko', 'zz', 'en-US,vi;q=0.5', '*') },
        { weight: 3, arbitrary: hostileShortString.map(headerSafe) },
      )
      .map((v) => [names, v] as [string, string]);
  const names = [
    'X-User-Id',
    'X-User-ID',
    'X-User-Username',
    'X-Session-Id',
    'X-Language',
    'Idempotency-Key',
    'X-Request-Id',
    'Accept-Language',
    'Origin',
    'X-Forwarded-For',
    'Accept',
    'Cookie',
    'X-HTTP-Method-Override',
    'If-None-Match',
    'Range',
  ];
  return fc.array(fc.constantFrom(...names).chain(value), { maxLength: 6 });
}

function jsonBodyArbitrary(schema: JsonSchema | undefined, known: KnownValues): fc.Arbitrary<BodySpec> {
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constant('application/json; charset=utf-8') },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: fc.constantFrom(...JSON_CONTENT_TYPES) },
  );
  const framing = fc.oneof(
    { weight: 12, arbitrary: fc.constant('length' as const) },
    { weight: 2, arbitrary: fc.constant('chunked' as const) },
    { weight: 1, arbitrary: fc.constant('short-then-hangup' as const) },
  );
  const malformed = fc.oneof(
    fc.constantFrom(
      '{',
      '{"a":',
      '[',
      'nul',
      'tru',
      '"unterminated',
      '{"a":1,}',
      "{'a':1}",
      '{"a":1e999}',
      '{"a":-}',
      '1e999',
      '\ufeff{}',
      '{"__proto__":{"is_admin":true,"role":"admin"}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"a":"\\ud800"}',
      '{"a":"\\u0000"}',
      '{"a":1}{"b":2}',
      '\u0000',
      '{"a":"\\x41"}',
      '{"a":01}',
    ),
    fc.integer({ min: 1000, max: 20000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
    fc.integer({ min: 1000, max: 20000 }).map((d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d)),
    hostileString,
  );
  // Past MAX_JSON_BODY_BYTES (1 MB by default): a 413 the client can read although it writes the
  // whole body before reading (CONTRACT §19), with a Content-Length or chunked.
  const oversized = fc.record({
    kind: fc.constant('text' as const),
    text: fc.integer({ min: 1024 * 1024 + 1, max: 3 * 1024 * 1024 }).map((n) => `{"a":"${'x'.repeat(n)}"}`),
    contentType: fc.constant('application/json'),
    chunked: fc.boolean(),
  });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: 'none' }) },
    { weight: 16, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fuzzValue(schema, known), contentType, framing }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('text' as const), text: malformed, contentType }) },
    { weight: 1, arbitrary: oversized },
  );
}

function multipartBodyArbitrary(spec: JsonSchema): fc.Arbitrary<BodySpec> {
  const schema = spec.requestBody?.content?.['multipart/form-data']?.schema ?? {};
  const fileFields = Object.keys(schema.properties ?? {});
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...(fileFields.length ? fileFields : ['file'])) },
    { weight: 2, arbitrary: fc.constantFrom('type', 'metadata') },
    { weight: 1, arbitrary: hostileShortString.map(headerSafe) },
  );
  const filename = fc.oneof(
    fc.constantFrom('a.png', 'a.jpg', 'video.mp4', 'x.m3u8', '../../../etc/passwd', '..', '', 'a\\b.png', 'CON', '.htaccess', 'a.png.exe'),
    hostileShortString.map(headerSafe),
  );
  const contentType = fc.constantFrom(
    'image/png',
    'image/jpeg',
    'image/webp',
    'image/bmp',
    'image/gif',
    'video/mp4',
    'video/quicktime',
    'application/vnd.apple.mpegurl',
    'application/dash+xml',
    'application/octet-stream',
    'text/plain',
    '',
    'image/svg+xml',
  );
  const data = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...FILE_BODIES) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 4000 }) },
    { weight: 2, arbitrary: fc.constantFrom('image', 'video', 'document', '{"a":1}', '{', 'null').map((s) => Buffer.from(s)) },
    { weight: 1, arbitrary: hostileString.map((s) => Buffer.from(s)) },
  );
  const part = fc.record({
    name,
    filename: fc.option(filename, { freq: 3 }),
    contentType: fc.option(contentType, { freq: 4 }),
    data,
    headerless: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  });
  const boundary = fc.oneof(
    { weight: 6, arbitrary: fc.constant('----fuzzBoundary7MA4YWxkTrZu0gW') },
    { weight: 1, arbitrary: fc.constantFrom('a', 'x'.repeat(70), 'y'.repeat(200), 'has space', '"quoted"', '--', 'é', ';') },
  );
  return fc.record({
    kind: fc.constant('multipart' as const),
    parts: fc.array(part, { minLength: 0, maxLength: 4 }),
    boundary,
    framing: fc.oneof({ weight: 4, arbitrary: fc.constant('complete' as const) }, { weight: 6, arbitrary: fc.constantFrom(...MULTIPART_FRAMINGS) }),
    cutAt: fc.double({ min: 0, max: 1, noNaN: true }),
  });
}

/** Path parameters, query and body as a well-behaved client would send them. */
function cleanParts(op: Operation, known: KnownValues) {
  const { spec } = op;
  const params: JsonSchema[] = spec.parameters ?? [];
  const pathValues = fc.tuple(
    ...pathParamNames(op.path).map((name) => {
      const schema = params.find((p) => p.in === 'path' && p.name === name)?.schema;
      return valid(schema, known, name).map((v) => percentEncode(String(v)));
    }),
  );
  const query = fc
    .tuple(
      ...params
        .filter((p) => p.in === 'query')
        .map((p) =>
          fc.option(
            valid(p.schema, known, p.name).map((v) => `${percentEncode(p.name)}=${percentEncode(String(v))}`),
            { freq: p.required ? 1000 : 2 },
          ),
        ),
    )
    .map((pairs) => pairs.filter((x): x is string => x !== null).join('&'));
  const jsonSchema: JsonSchema | undefined = spec.requestBody?.content?.['application/json']?.schema;
  let body: fc.Arbitrary<BodySpec> = fc.constant({ kind: 'none' });
  if (spec.requestBody?.content?.['multipart/form-data']) {
    const fileFields = Object.keys(spec.requestBody.content['multipart/form-data'].schema?.properties ?? {});
    body = fc.record({
      kind: fc.constant('multipart' as const),
      parts: fc
        .tuple(
          fc.record({
            name: fc.constantFrom(...fileFields),
            filename: fc.constantFrom('photo.png', 'photo.jpg', 'tour.mp4', 'doc.pdf'),
            contentType: fc.constantFrom('image/png', 'image/jpeg', 'video/mp4', 'application/pdf'),
            data: fc.constantFrom(...FILE_BODIES),
            headerless: fc.constant(false),
          }),
          fc.record({
            name: fc.constant('type'),
            filename: fc.constant(null),
            contentType: fc.constant(null),
            data: fc.constantFrom('image', 'video', 'document').map((t) => Buffer.from(t)),
            headerless: fc.constant(false),
          }),
        )
        .map((ps) => [...ps]),
      boundary: fc.constant('----fuzzBoundary7MA4YWxkTrZu0gW'),
      framing: fc.constant('complete' as const),
      cutAt: fc.constant(1),
    });
  } else if (jsonSchema) {
    body = valid(jsonSchema, known).map((value) => ({ kind: 'json', value, contentType: 'application/json', framing: 'length' }));
  }
  return { pathValues, query, body };
}

/** Everything about a request, generated to break things. */
function hostileParts(op: Operation, known: KnownValues) {
  const { spec } = op;
  const jsonSchema: JsonSchema | undefined = spec.requestBody?.content?.['application/json']?.schema;
  const multipart = spec.requestBody?.content?.['multipart/form-data'] !== undefined;
  let body: fc.Arbitrary<BodySpec>;
  if (multipart) {
    body = fc.oneof({ weight: 8, arbitrary: multipartBodyArbitrary(spec) }, { weight: 1, arbitrary: jsonBodyArbitrary(undefined, known) });
  } else if (jsonSchema) {
    body = jsonBodyArbitrary(jsonSchema, known);
  } else {
    // Operations without a body still get one now and then.
    body = fc.oneof({ weight: 6, arbitrary: fc.constant({ kind: 'none' }) }, { weight: 1, arbitrary: jsonBodyArbitrary(undefined, known) });
  }
  const pathValues = fc.tuple(...pathParamNames(op.path).map(() => rawComponent(known)));
  return { pathValues, query: queryArbitrary(spec, known), headers: headersArbitrary(known), body };
}

const FAULTS = ['path', 'query', 'headers', 'body'] as const;

/**
 * A case is `clean` (what a client would send: it reaches the handlers and their queries),
 * `one-fault` (clean but for one part) or `chaos` (every part hostile).
 */
export function caseArbitrary(op: Operation, known: KnownValues): fc.Arbitrary<FuzzCase> {
  const clean = cleanParts(op, known);
  const hostile = hostileParts(op, known);
  return fc
    .record({
      mode: fc.oneof(
        { weight: 1, arbitrary: fc.constant('clean' as const) },
        { weight: 2, arbitrary: fc.constant('one-fault' as const) },
        { weight: 2, arbitrary: fc.constant('chaos' as const) },
      ),
      fault: fc.constantFrom(...FAULTS),
      // Every case is also sent without credentials (see the test), so 'none' is not drawn here.
      auth: fc.oneof(
        { weight: 4, arbitrary: fc.constant('user' as const) },
        { weight: 3, arbitrary: fc.constant('admin' as const) },
        { weight: 1, arbitrary: fc.constant('garbage' as const) },
      ),
      realAuth: fc.constantFrom('user' as const, 'admin' as const),
      garbage: fc.constantFrom(...GARBAGE_AUTH),
      garbageText: hostileShortString.map(headerSafe),
      clean: fc.record({ pathValues: clean.pathValues, query: clean.query, body: clean.body }),
      hostile: fc.record(hostile),
    })
    .map((g): FuzzCase => {
      const pick = (part: (typeof FAULTS)[number]) => g.mode === 'chaos' || (g.mode === 'one-fault' && g.fault === part);
      return {
        auth: g.mode === 'chaos' ? g.auth : g.realAuth,
        garbage: g.garbage,
        garbageText: g.garbageText,
        pathValues: pick('path') ? g.hostile.pathValues : g.clean.pathValues,
        query: pick('query') ? g.hostile.query : g.clean.query,
        headers: pick('headers') ? g.hostile.headers : [],
        body: pick('body') ? g.hostile.body : g.clean.body,
      };
    });
}

const b64url = (s: string) => Buffer.from(s).toString('base64url');

export function garbageAuthorization(kind: GarbageAuth, text: string, tokens: Tokens): string {
  const [h, p, s] = tokens.access.split('.');
  switch (kind) {
    case 'bad-signature':
      return `Bearer ${h}.${p}.${(s ?? '').slice(0, -4)}AAAA`;
    case 'no-signature':
      return `Bearer ${h}.${p}.`;
    case 'alg-none':
      return `Bearer ${b64url('{"alg":"none","typ":"JWT"}')}.${p}.`;
    case 'two-tokens':
      return `Bearer ${tokens.access} ${tokens.access}`;
    case 'refresh-as-access':
      return `Bearer ${tokens.refresh}`;
    case 'hostile':
      return `Bearer ${text}`;
    case 'very-long':
      return `Bearer ${'a'.repeat(5000)}.${'b'.repeat(3000)}.c`;
    case 'wrong-scheme':
      return `Basic ${b64url('user:pass')}`;
    case 'empty-bearer':
      return 'Bearer';
    case 'lowercase-scheme':
      return `bearer   ${tokens.access}x`;
  }
}

function multipartBytes(parts: MultipartPart[], boundary: string, closing: boolean): { bytes: Buffer; lastDataStart: number } {
  const chunks: Buffer[] = [];
  let length = 0;
  let lastDataStart = 0;
  const push = (b: Buffer) => {
    chunks.push(b);
    length += b.length;
  };
  for (const p of parts) {
    let head = `--${boundary}\r\n`;
    if (!p.headerless) {
      head += `Content-Disposition: form-data; name="${p.name}"${p.filename !== null ? `; filename="${p.filename}"` : ''}\r\n`;
      if (p.contentType !== null) head += `Content-Type: ${p.contentType}\r\n`;
    }
    push(Buffer.from(head + '\r\n', 'latin1'));
    lastDataStart = length;
    push(Buffer.from(p.data));
    push(Buffer.from('\r\n'));
  }
  if (closing) push(Buffer.from(`--${boundary}--\r\n`));
  return { bytes: Buffer.concat(chunks), lastDataStart };
}

/** One chunk of a chunked body (none for no bytes). */
export const chunk = (b: Buffer) => (b.length ? Buffer.concat([Buffer.from(b.length.toString(16) + '\r\n'), b, Buffer.from('\r\n')]) : Buffer.alloc(0));

/** What to put on the wire for `c`. `hangup` requests expect no answer. */
export function toRawRequest(op: Operation, c: FuzzCase, host: string, tokens: Tokens): RawRequest {
  let i = 0;
  const target = op.path.replace(/\{[^}]+\}/g, () => c.pathValues[i++]) + (c.query ? `?${c.query}` : '');
  const headers: [string, string][] = [['Host', host]];
  if (c.auth === 'garbage') headers.push(['Authorization', garbageAuthorization(c.garbage, c.garbageText, tokens)]);
  else if (c.auth !== 'none' && tokens.bearer) headers.push(['Authorization', `Bearer ${tokens.bearer}`]);
  headers.push(...c.headers);

  const b = c.body;
  let body: Buffer | undefined;
  let ending: RawRequest['ending'] = 'complete';
  const setType = (t: string | null) => {
    if (t !== null) headers.push(['Content-Type', t]);
  };
  const framed = (bytes: Buffer, how: 'length' | 'chunked' | 'chunked-open' | 'short') => {
    if (how === 'length') {
      headers.push(['Content-Length', String(bytes.length)]);
      body = bytes;
    } else if (how === 'short') {
      // Announce more than is sent, then leave: the server must give up on the body cleanly.
      headers.push(['Content-Length', String(bytes.length + 1000)]);
      body = bytes;
      ending = 'hangup';
    } else {
      headers.push(['Transfer-Encoding', 'chunked']);
      body = how === 'chunked' ? Buffer.concat([chunk(bytes), Buffer.from('0\r\n\r\n')]) : chunk(bytes);
      if (how === 'chunked-open') ending = 'hangup';
    }
  };

  if (b.kind === 'json') {
    setType(b.contentType);
    const text = JSON.stringify(b.value) ?? '';
    framed(Buffer.from(text, 'utf8'), b.framing === 'short-then-hangup' ? 'short' : b.framing);
  } else if (b.kind === 'text') {
    setType(b.contentType);
    framed(Buffer.from(b.text, 'utf8'), b.chunked ? 'chunked' : 'length');
  } else if (b.kind === 'multipart') {
    const type = `multipart/form-data; boundary=${b.boundary}`;
    const full = multipartBytes(b.parts, b.boundary, true).bytes;
    const open = multipartBytes(b.parts, b.boundary, false);
    // A cut inside the last part's data (or anywhere, when there are no parts).
    const cut = open.bytes.subarray(0, open.lastDataStart + Math.floor((open.bytes.length - open.lastDataStart) * b.cutAt));
    switch (b.framing) {
      case 'complete':
        setType(type);
        framed(full, 'length');
        break;
      case 'cut-mid-file':
        setType(type);
        framed(cut, 'length');
        break;
      case 'no-boundary-param':
        setType('multipart/form-data');
        framed(full, 'length');
        break;
      case 'wrong-boundary':
        setType('multipart/form-data; boundary=not-the-one-used');
        framed(full, 'length');
        break;
      case 'repeated-boundary':
        setType(type);
        framed(
          Buffer.concat([Buffer.from(`--${b.boundary}\r\n--${b.boundary}\r\n\r\n--${b.boundary}\r\n`), full, Buffer.from(`--${b.boundary}--\r\n`)]),
          'length',
        );
        break;
      case 'preamble-only':
        setType(type);
        framed(Buffer.from('this is a preamble with no boundary at all\r\n'), 'length');
        break;
      case 'empty-body':
        setType(type);
        headers.push(['Content-Length', '0']);
        break;
      case 'chunked':
        setType(type);
        framed(full, 'chunked');
        break;
      case 'chunked-cut':
        setType(type);
        framed(cut, 'chunked');
        break;
      case 'short-then-hangup':
        setType(type);
        framed(cut, 'short');
        break;
      case 'chunked-then-hangup':
        setType(type);
        framed(cut, 'chunked-open');
        break;
    }
  }
  return { method: op.method, target, headers, body, ending };
}

/** A short, printable account of a request for failure messages (huge values elided). */
export function describeRequest(req: RawRequest, c: FuzzCase): string {
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const lines = [
    `${req.method} ${clip(req.target, 300)}  [auth: ${c.auth}${c.auth === 'garbage' ? ` ${c.garbage}` : ''}, ending: ${req.ending}]`,
    ...req.headers
      .filter(([k]) => k !== 'Host')
      .map(([k, v]) => `  ${k}: ${clip(k === 'Authorization' ? v.replace(/^(Bearer\s+)?(.{12}).*/s, '$1$2…') : v, 200)}`),
  ];
  if (c.body.kind === 'multipart') {
    lines.push(
      `  multipart framing=${c.body.framing} boundary=${JSON.stringify(c.body.boundary)} cutAt=${c.body.cutAt.toFixed(3)} parts=` +
        JSON.stringify(
          c.body.parts.map((p) => ({
            name: clip(p.name, 60),
            filename: p.filename && clip(p.filename, 60),
            contentType: p.contentType,
            bytes: p.data.length,
            head: Buffer.from(p.data.subarray(0, 16)).toString('hex'),
            headerless: p.headerless,
          })),
        ),
    );
  }
  if (req.body) lines.push(`  body (${req.body.length} bytes): ${clip(JSON.stringify(req.body.subarray(0, 1000).toString('utf8')), 600)}`);
  return lines.join('\n');
}

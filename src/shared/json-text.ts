// An answer's data already serialised: what a read cache keeps, so a hot answer is turned into
// JSON once, not on every request. It is kept as UTF-8 bytes, in pieces: the HTTP layer writes
// the pieces inside the envelope as they are, so an answer made of kept parts (a listing page of
// kept items) costs a copy of bytes, not the encoding of its text to UTF-8 on every request (a
// 30 KB page with Vietnamese text, a two-byte string, took 0.2 ms to encode; docs/performance.md).
// Anything else that serialises it (a test's declaration check, a socket emit) gets the value back
// through toJSON.

/**
 * `text` as UTF-8 in memory of its own (a small Buffer.from is a slice of a shared 8 KB pool,
 * which a kept slice would hold alive whole).
 */
function utf8(text: string): Buffer {
  const bytes = encoder.encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
const encoder = new TextEncoder();

const OPEN = utf8('{');
const CLOSE = utf8('}');
const COMMA = utf8(',');
const OPEN_ARRAY = utf8('[');
const CLOSE_ARRAY = utf8(']');

export class JsonText {
  /** The JSON as UTF-8, in the order written. */
  readonly chunks: readonly Buffer[];
  /** The sum of the chunks' lengths. */
  readonly byteLength: number;

  constructor(json: string | readonly Buffer[]) {
    this.chunks = typeof json === 'string' ? [utf8(json)] : json;
    let length = 0;
    for (const chunk of this.chunks) length += chunk.length;
    this.byteLength = length;
  }

  static of(value: unknown): JsonText {
    return new JsonText(JSON.stringify(value));
  }

  /**
   * An object's JSON where a field that is JsonText, or an array of JsonText, is written as it is
   * (parts serialised before, e.g. kept items) and any other field is serialised; undefined
   * fields are left out, as JSON.stringify leaves them.
   */
  static object(fields: Record<string, unknown>): JsonText {
    const chunks: Buffer[] = [OPEN];
    let first = true;
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      if (!first) chunks.push(COMMA);
      first = false;
      chunks.push(utf8(`${JSON.stringify(key)}:`));
      if (value instanceof JsonText) chunks.push(...value.chunks);
      else if (Array.isArray(value) && value.length > 0 && value.every((v) => v instanceof JsonText)) {
        chunks.push(OPEN_ARRAY);
        value.forEach((v: JsonText, i) => {
          if (i > 0) chunks.push(COMMA);
          chunks.push(...v.chunks);
        });
        chunks.push(CLOSE_ARRAY);
      } else chunks.push(utf8(JSON.stringify(value)));
    }
    chunks.push(CLOSE);
    return new JsonText(chunks);
  }

  /** The JSON as a string (decoded each time: for the few readers that splice or parse it). */
  get text(): string {
    return Buffer.concat(this.chunks, this.byteLength).toString('utf8');
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

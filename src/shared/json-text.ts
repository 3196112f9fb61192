// An answer's data already serialised: what a read cache keeps, so a hot answer is turned into
// JSON once, not on every request. The HTTP layer writes `text` as it is; anything else that
// serialises it (a test's declaration check, a socket emit) gets the value back through toJSON.
export class JsonText {
  constructor(readonly text: string) {}

  static of(value: unknown): JsonText {
    return new JsonText(JSON.stringify(value));
  }

  /**
   * An object's JSON where a field that is JsonText, or an array of JsonText, is written as it is
   * (parts serialised before, e.g. kept items) and any other field is serialised; undefined
   * fields are left out, as JSON.stringify leaves them.
   */
  static object(fields: Record<string, unknown>): JsonText {
    const parts: string[] = [];
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${textOf(value)}`);
    }
    return new JsonText(`{${parts.join(',')}}`);
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

function textOf(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => v instanceof JsonText)) return `[${value.map((v: JsonText) => v.text).join(',')}]`;
  return JSON.stringify(value);
}

// An answer's data already serialised: what a read cache keeps, so a hot answer is turned into
// JSON once, not on every request. The HTTP layer writes `text` as it is; anything else that
// serialises it (a test's declaration check, a socket emit) gets the value back through toJSON.
export class JsonText {
  constructor(readonly text: string) {}

  static of(value: unknown): JsonText {
    return new JsonText(JSON.stringify(value));
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

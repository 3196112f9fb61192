// Server mode: statements are sent as named prepared statements, so PostgreSQL parses and plans a
// statement once per connection instead of on every request (measured: the same two queries of
// `/user/me` ran ~1.8× faster prepared than unnamed, bench/read-path.ts). Each distinct SQL text
// gets a name; the repositories' texts are few, but a filter combination or an `in` list of a new
// length makes a new text, and node-postgres keeps every statement it prepared on a connection
// for the connection's life. So only the first MAX_NAMED texts are named; any text after that is
// sent unnamed (parsed each time), which bounds what each connection holds.
const MAX_NAMED = 1_000;

export class StatementNames {
  private readonly names = new Map<string, string>();

  /** The statement's name, or undefined when it is to be sent unnamed. */
  nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= MAX_NAMED) return known;
    const name = `s${this.names.size + 1}`;
    this.names.set(text, name);
    return name;
  }
}

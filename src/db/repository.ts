// The base of every repository: its SQL runs on one Queryable (the database), and `in(tx)` gives
// the same repository bound to a transaction. Services receive their repositories from the
// composition root (src/services.ts) and never build one: where a rule spans several writes, the
// service opens a transaction and calls `repository.in(tx)` on the repositories it was given.
import type { Queryable } from './handle.js';

export abstract class Repository {
  constructor(protected readonly db: Queryable) {}

  /** This repository's queries run inside `tx`, a transaction of the same database. */
  in(tx: Queryable): this {
    // A view of this repository whose `db` is the transaction: the prototype chain keeps the
    // methods and any other field, without calling a constructor again.
    const bound = Object.create(this) as this;
    Object.defineProperty(bound, 'db', { value: tx, enumerable: true });
    return bound;
  }
}

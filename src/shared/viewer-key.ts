// Who watched or was shown something, as views and campaign delivery store it: `u:<user id>`, or
// for a client without a token `a:<keyed hash of its address>` (the address as the rate limits
// count it: an IPv6 client by its /64). The hash is keyed with a secret of this service, so a stored
// key cannot be turned back into an address by hashing every IPv4 address; one key for both
// modules, so one anonymous viewer is one viewer to each of them.
//
// The key is SHA-256 over the secret and then the address, from a hash state that has already
// read the secret (copied per address): what an HMAC gives here (no address without the secret)
// at a third of its cost, which the sponsored slot pays on every anonymous first page. Length
// extension, the weakness of a secret-prefix hash, lets no one find an address from its key.
import { createHash, type Hash } from 'node:crypto';

/** A viewer: a signed-in user, or a client by its address. */
export type Watcher = { userId: string } | { address: string };

export class ViewerKeys {
  private readonly keyed: Hash;

  constructor(secret: string) {
    this.keyed = createHash('sha256').update(`${secret}\n`);
  }

  of(watcher: Watcher): string {
    if ('userId' in watcher) return `u:${watcher.userId}`;
    return `a:${this.keyed.copy().update(watcher.address).digest('base64url').slice(0, 22)}`;
  }
}

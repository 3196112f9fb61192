// Who watched or was shown something, as views and campaign delivery store it: `u:<user id>`, or
// for a client without a token `a:<keyed hash of its address>` (the address as the rate limits
// count it: an IPv6 client by its /64). The hash is keyed with a secret of this service, so a stored
// key cannot be turned back into an address by hashing every IPv4 address; one key for both
// modules, so one anonymous viewer is one viewer to each of them.
import { createHmac } from 'node:crypto';

/** A viewer: a signed-in user, or a client by its address. */
export type Watcher = { userId: string } | { address: string };

export class ViewerKeys {
  constructor(private readonly secret: string) {}

  of(watcher: Watcher): string {
    if ('userId' in watcher) return `u:${watcher.userId}`;
    return `a:${createHmac('sha256', this.secret).update(watcher.address).digest('base64url').slice(0, 22)}`;
  }
}

// The one gate every outbound request to a URL that someone else chose goes through (Web Push
// endpoints, the upload URLs a publishing platform hands back; CONTRACT §19 "Outbound
// requests"). It parses the URL (WHATWG), refuses credentials and IPv4 literals written in any
// notation but dotted decimal, resolves the host (every address), refuses the URL when any
// address is not public unicast (loopback, private, link-local, unique-local, CGNAT, multicast,
// broadcast, unspecified, reserved, an IPv6 form that embeds such an IPv4 address…), and hands back
// the address it checked so the connection goes there: the caller connects with an agent whose
// lookup answers that address only (no second lookup that DNS rebinding could change).
// OUTBOUND_ALLOWED_HOSTS names hosts exempt from the address check (a push relay on the
// operator's own network, the tests' stand-ins on 127.0.0.1); their connection is pinned too.
import dns from 'node:dns';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';

export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Every address of a host name; throws when it cannot be resolved. The tests plug in their own. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Why a URL is refused (log-safe words; the URL itself is not logged). */
export type Refusal = 'malformed' | 'protocol' | 'credentials' | 'ip_notation' | 'address_not_allowed' | 'unresolvable';

/** A checked destination: connect to `address` (and only there) for `url`. */
export interface OutboundTarget {
  url: URL;
  /** The host name as the TLS server name and Host header know it (brackets stripped for IPv6). */
  hostname: string;
  address: string;
  family: number;
}

export type GateAnswer = { ok: true; target: OutboundTarget } | { ok: false; refusal: Refusal };

/** Outside it no IPv6 address is global unicast (IANA: the rest is reserved, local or multicast). */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * The IPv4 addresses an IPv6 address carries, by its form: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d` (all of `::/96`, so `::` and
 * `::1` read as 0.0.0.0 and 0.0.0.1), NAT64 `64:ff9b::/96` (the last 32 bits), 6to4 `2002::/16`
 * (bits 16-47), Teredo `2001::/32` (the server in bits 32-63, the client in the last 32 bits
 * inverted: both). Null when it carries none. The local-use NAT64 prefix `64:ff9b:1::/48` is not
 * read: it is not globally reachable whatever it carries, and lies outside `2000::/3`.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 5) && (p[5] === 0 || p[5] === 0xffff)) return [v4(p[6], p[7])];
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return [v4(p[6], p[7])];
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return [v4(p[6], p[7])];
  if (p[0] === 0x2002) return [v4(p[1], p[2])];
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff)];
  return null;
}

/**
 * True for an address a request may go to: public unicast only. IPv4: none of the IANA
 * special-purpose ranges (ipaddr.js's table: loopback, private, link-local, CGNAT, 0/8,
 * documentation, benchmarking, 192.0.0/24, 240/4, broadcast, multicast…). IPv6 that embeds IPv4
 * is judged by the IPv4 it carries (every one of them, for Teredo); any other IPv6 must lie in
 * `2000::/3` and outside its special-purpose ranges (2001::/23, documentation, ORCHID…).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.every((v4) => v4.range() === 'unicast');
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast';
}

/** The host as written in the URL's authority (after any userinfo, before the port), lowercased. */
function writtenHost(raw: string): string | null {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(raw.trim())?.[1];
  if (authority === undefined) return null;
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase();
  const colon = host.indexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

const stripBrackets = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

export class OutboundGate {
  private readonly allowed: ReadonlySet<string>;

  constructor(
    allowedHosts: Iterable<string>,
    private readonly resolve: HostResolver = systemResolver,
  ) {
    this.allowed = new Set([...allowedHosts].map((h) => stripBrackets(h.trim().toLowerCase())).filter(Boolean));
  }

  /** What can be told without DNS: the URL parses, uses an allowed scheme, has no credentials, and writes an IPv4 literal plainly. */
  inspect(raw: string, protocols: readonly string[] = ['https:']): { ok: true; url: URL; hostname: string } | { ok: false; refusal: Refusal } {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, refusal: 'malformed' };
    }
    if (!protocols.includes(url.protocol)) return { ok: false, refusal: 'protocol' };
    if (url.username !== '' || url.password !== '' || /^[^/?#]*:\/\/[^/?#]*@/.test(raw.trim())) return { ok: false, refusal: 'credentials' };
    const hostname = stripBrackets(url.hostname);
    if (hostname === '') return { ok: false, refusal: 'malformed' };
    // WHATWG turns 2130706433, 0x7f.1, 0177.0.0.1, 127.1 into 127.0.0.1: such a host is refused
    // whatever it names (CONTRACT: IP literals in other notations), and so is any host that the
    // URL as written and the parsed URL disagree on.
    const written = writtenHost(raw);
    if (written === null) return { ok: false, refusal: 'malformed' };
    if (ipaddr.IPv4.isValid(hostname) && written !== hostname) return { ok: false, refusal: 'ip_notation' };
    if (ipaddr.IPv6.isValid(hostname) && !ipaddr.IPv6.isValid(stripBrackets(written))) return { ok: false, refusal: 'ip_notation' };
    return { ok: true, url, hostname };
  }

  /** Checks a URL and resolves its host; the answer's target is where to connect. */
  async check(raw: string, protocols: readonly string[] = ['https:']): Promise<GateAnswer> {
    const inspected = this.inspect(raw, protocols);
    if (!inspected.ok) return inspected;
    const { url, hostname } = inspected;
    let addresses: ResolvedAddress[];
    if (ipaddr.isValid(hostname)) {
      addresses = [{ address: hostname, family: ipaddr.parse(hostname).kind() === 'ipv6' ? 6 : 4 }];
    } else {
      try {
        addresses = await this.resolve(hostname);
      } catch {
        return { ok: false, refusal: 'unresolvable' };
      }
      if (addresses.length === 0) return { ok: false, refusal: 'unresolvable' };
    }
    // One address that is not public is enough to refuse: a name that mixes them is not a push service.
    if (!this.allowed.has(hostname) && !addresses.every((a) => isPublicAddress(a.address))) return { ok: false, refusal: 'address_not_allowed' };
    const [first] = addresses;
    return { ok: true, target: { url, hostname, address: first.address, family: first.family } };
  }

  /** An https.Agent (for libraries built on https.request) whose every connection goes to the checked address. */
  httpsAgent(target: OutboundTarget, options: https.AgentOptions = {}): https.Agent {
    return new PinnedHttpsAgent(target, options);
  }

  /** An undici dispatcher (for fetch) whose every connection goes to the checked address. */
  dispatcher(target: OutboundTarget): Agent {
    return new Agent({ connect: { lookup: pinnedLookup(target) }, pipelining: 0 });
  }
}

/** A lookup that answers the checked address whatever it is asked (in both callback shapes Node uses). */
function pinnedLookup(target: OutboundTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/**
 * An https.Agent that always connects to the checked address, keeping the host name for TLS
 * (SNI and certificate check): also for a caller that parses the URL otherwise (web-push uses
 * the legacy url.parse) and would hand another host to https.request.
 */
class PinnedHttpsAgent extends https.Agent {
  constructor(
    private readonly target: OutboundTarget,
    options: https.AgentOptions,
  ) {
    super({ ...options, keepAlive: false, lookup: pinnedLookup(target) });
  }

  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    // No SNI for an IP literal (the certificate is then checked against the address itself).
    const servername = ipaddr.isValid(this.target.hostname) ? '' : this.target.hostname;
    return super.createConnection({ ...options, host: this.target.address, servername, lookup: pinnedLookup(this.target) }, callback);
  }
}

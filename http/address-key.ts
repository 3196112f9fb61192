// What an address-based limit counts a client by (CONTRACT §19): an IPv4 address as it is, an
// IPv6 client by its /64 (one subscriber, one site: an attacker holding a /64 owns 2^64 addresses,
// so counting each alone would multiply any limit by that much). IPv4-mapped IPv6 is the IPv4
// address. Something that is not an address (a proxy's X-Forwarded-For with garbage) is counted
// as the text it is, cut to a bounded length.
import ipaddr from 'ipaddr.js';

const MAX_KEY_LENGTH = 64;

/** An IPv4 address written the usual way (no leading zeros): its key is the text as it is. */
const PLAIN_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function addressKey(ip: string): string {
  // Most clients: every request pays this, and parsing the address would give the same text back.
  if (PLAIN_IPV4.test(ip)) return ip;
  if (!ipaddr.isValid(ip)) return ip.slice(0, MAX_KEY_LENGTH);
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = (address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':');
  return `${prefix}::/64`;
}

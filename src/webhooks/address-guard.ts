import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Loopback, private, link-local, shared, multicast and reserved ranges: nothing a public receiver lives at. */
const BLOCKED = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  BLOCKED.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  // NAT64 local-use prefix (RFC 8215): the IPv4 part's position depends on the network's prefix length.
  ['64:ff9b:1::', 48],
] as const) {
  BLOCKED.addSubnet(address, prefix, 'ipv6');
}

/** An IPv6 address as its eight 16-bit groups (a trailing dotted IPv4 included), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((g) => Number.parseInt(g, 16)) : [];
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 address an IPv6 address carries, for the forms that route to it or that a resolver
 * or socket may treat as it: IPv4-mapped `::ffff:0:0/96`, IPv4-compatible `::/96`, the
 * deprecated IPv4-translated `::ffff:0:0:0/96`, 6to4 `2002::/16`, NAT64 `64:ff9b::/96`, and
 * Teredo's client address (`2001::/32`, stored inverted).
 */
export function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (g === undefined) return undefined;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(5) && g5 === 0xffff) return ipv4(g6, g7);
  if (zeroTo(6)) return ipv4(g6, g7);
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return ipv4(g6, g7);
  if (g0 === 0x2002) return ipv4(g1, g2);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4(g6, g7);
  if (g0 === 0x2001 && g1 === 0) return ipv4(g6 ^ 0xffff, g7 ^ 0xffff);
  return undefined;
}

/** Whether an IP address is one webhooks must not reach; an IPv6 address that embeds an IPv4 one is judged by both. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 0) return true;
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined && BLOCKED.check(embedded, 'ipv4')) return true;
  return BLOCKED.check(address.replace(/%.*$/, ''), 'ipv6');
}

/**
 * Why a webhook may not be sent to `url`, or undefined when it may: only http(s), and (unless
 * FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE) no host that resolves to a private address, so a project
 * admin cannot make the server call into its own network (SSRF). Checked on registration and
 * again before every attempt, since DNS answers change.
 */
export async function refusedWebhookUrl(url: string, allowPrivate: boolean): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials';
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host)
      ? [host]
      : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `names a host that does not resolve (${parsed.hostname})`;
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    return 'resolves to a loopback, private or link-local address (set FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE=true to allow)';
  }
  return undefined;
}

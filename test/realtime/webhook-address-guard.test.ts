import { describe, expect, it } from 'vitest';
import { embeddedIPv4, isPrivateAddress, refusedWebhookUrl } from '../../src/webhooks/address-guard.ts';

/** Loopback, link-local (cloud metadata) and private IPv4 addresses, spelt as IPv6 in every form that embeds them. */
const REFUSED = [
  // IPv4-mapped, dotted and hex
  'http://[::ffff:127.0.0.1]/x',
  'http://[::ffff:7f00:1]/x',
  'http://[0:0:0:0:0:ffff:a9fe:a9fe]/latest',
  // IPv4-compatible (deprecated, still parsed by stacks)
  'http://[::127.0.0.1]/x',
  'http://[::7f00:1]/x',
  'http://[::a9fe:a9fe]/latest',
  'http://[::10.0.0.1]/x',
  // IPv4-translated (deprecated)
  'http://[::ffff:0:7f00:1]/x',
  'http://[::ffff:0:192.168.1.1]/x',
  // 6to4
  'http://[2002:7f00:1::]/x',
  'http://[2002:a9fe:a9fe::1]/latest',
  'http://[2002:c0a8:101:0:0:0:0:1]/x',
  // NAT64, well-known prefix and the local-use one
  'http://[64:ff9b::7f00:1]/x',
  'http://[64:ff9b::169.254.169.254]/latest',
  'http://[64:ff9b:1::a00:1]/x',
  'http://[64:ff9b:1:fffe::1]/x',
  // Teredo with an inverted private client address
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x',
  // and the plain ones
  'http://[::1]/x',
  'http://[::]/x',
  'http://[fe80::1]/x',
  'http://[fd00::1]/x',
];

const ACCEPTED = [
  'http://[2606:4700:4700::1111]/x',
  'http://[::ffff:8.8.8.8]/x',
  'http://[::ffff:808:808]/x',
  'http://[2002:808:808::1]/x',
  'http://[64:ff9b::8.8.8.8]/x',
  'http://93.184.216.34/x',
];

describe('the webhook address guard', () => {
  it('refuses every IPv6 spelling of a loopback, link-local or private IPv4 address', async () => {
    const verdicts = await Promise.all(REFUSED.map((url) => refusedWebhookUrl(url, false)));
    const accepted = REFUSED.filter((_, i) => verdicts[i] === undefined);
    expect(accepted).toEqual([]);
  });

  it('still accepts public addresses, also when an IPv6 address embeds a public IPv4 one', async () => {
    const verdicts = await Promise.all(ACCEPTED.map((url) => refusedWebhookUrl(url, false)));
    expect(verdicts).toEqual(ACCEPTED.map(() => undefined));
  });

  it('reads the IPv4 address inside each embedding form', () => {
    expect(embeddedIPv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIPv4('::a9fe:a9fe')).toBe('169.254.169.254');
    expect(embeddedIPv4('::ffff:0:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIPv4('2002:7f00:1::')).toBe('127.0.0.1');
    expect(embeddedIPv4('64:ff9b::c0a8:101')).toBe('192.168.1.1');
    expect(embeddedIPv4('2606:4700:4700::1111')).toBeUndefined();
    expect(isPrivateAddress('not an address')).toBe(true);
  });
});

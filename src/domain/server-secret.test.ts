import { describe, expect, it } from 'vitest';
import { ServerSecret, UnsealError } from './server-secret.ts';

const one = ServerSecret.fromText('one-server-key-0123456789abcdefghijklmn');
const other = ServerSecret.fromText('another-server-key-0123456789abcdefghij');

describe('ServerSecret', () => {
  it('seals text that only the same key opens, with a fresh IV each time', () => {
    const sealed = one.seal('whsec_abc');
    expect(ServerSecret.isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('whsec_abc');
    expect(one.seal('whsec_abc')).not.toBe(sealed);
    expect(one.open(sealed)).toBe('whsec_abc');
    expect(() => other.open(sealed)).toThrow(UnsealError);
  });

  it('refuses sealed text that was altered', () => {
    const sealed = one.seal('whsec_abc');
    const flipped = `${sealed.slice(0, -1)}${sealed.endsWith('A') ? 'B' : 'A'}`;
    expect(() => one.open(flipped)).toThrow(UnsealError);
    expect(ServerSecret.isSealed('whsec_plain')).toBe(false);
  });

  it('derives a key per purpose and per API key, none of them the hash itself', () => {
    const hash = 'a'.repeat(64);
    const sync = one.derive('flagd-sync', hash);
    expect(sync).not.toBe(hash);
    expect(sync).not.toBe(one.derive('stream-token', hash));
    expect(sync).not.toBe(one.derive('flagd-sync', 'b'.repeat(64)));
    expect(sync).not.toBe(other.derive('flagd-sync', hash));
    expect(one.derive('flagd-sync', hash)).toBe(sync);
  });

  it('names itself by a fingerprint that differs between keys', () => {
    expect(one.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(one.fingerprint).not.toBe(other.fingerprint);
  });
});

import { describe, expect, it } from 'vitest';
import {
  deriveSyncCredential,
  isSyncCredentialFor,
  syncCredentialKeyId,
  syncScope,
} from './sync-credential.ts';

const HASH = 'a'.repeat(64);
const credential = deriveSyncCredential('key_01abc', HASH, syncScope('shop', 'production'));

describe('flagd sync credentials', () => {
  it('names its key and holds nothing of the key secret hash', () => {
    expect(credential).toMatch(/^fsc\.key_01abc\.[A-Za-z0-9_-]{43}$/);
    expect(credential).not.toContain(HASH);
    expect(syncCredentialKeyId(credential)).toBe('key_01abc');
  });

  it.each([
    ['the scope it was derived for', credential, HASH, 'shop/production', true],
    ['another environment', credential, HASH, 'shop/development', false],
    ['another project', credential, HASH, 'other/production', false],
    ['another key (secret hash)', credential, 'b'.repeat(64), 'shop/production', false],
    ['a changed last character', `${credential.slice(0, -1)}A`, HASH, 'shop/production', false],
    ['a truncated credential', credential.slice(0, -2), HASH, 'shop/production', false],
    ['an API key secret', 'fsk_abcdef', HASH, 'shop/production', false],
  ])('accepts only what was derived: %s', (_, text, hash, scope, accepted) => {
    expect(isSyncCredentialFor(text, hash, scope)).toBe(accepted);
  });

  it.each(['fsk_abcdef', 'fsc.', 'fsc.key_1.', 'fsc..mac', ''])('reads no key id from %j', (text) => {
    expect(syncCredentialKeyId(text)).toBeUndefined();
  });
});

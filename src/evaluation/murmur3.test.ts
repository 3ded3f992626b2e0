import { createRequire } from 'node:module';
import { describe, expect, it, test } from 'vitest';
import { murmur3, murmur3After, murmur3Concat, prepareSeed } from './murmur3.ts';

// imurmurhash is the hash flagd-core uses. It hashes UTF-16 code units, so it agrees with
// UTF-8 MurmurHash3 only when given the UTF-8 bytes as a Latin-1 string.
const require = createRequire(import.meta.url);
const IMurmurHash = require('imurmurhash') as new (key: string) => { result(): number };
const utf8AsLatin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

describe('murmur3', () => {
  // Published MurmurHash3 x86_32 vectors (SMHasher-compatible implementations).
  test.each([
    ['', 0, 0x00000000],
    ['', 1, 0x514e28b7],
    ['', 0xffffffff, 0x81f16f39],
    ['test', 0, 0xba6bd213],
    ['aaaa', 0x9747b28c, 0x5a97808a],
    ['abc', 0x9747b28c, 0xc84a62dd],
    ['Hello, world!', 0x9747b28c, 0x24884cba],
    ['ππππππππ', 0x9747b28c, 0xd58063c1],
    ['The quick brown fox jumps over the lazy dog', 0x9747b28c, 0x2fa826cd],
  ])('hashes %j with seed %i to the published value', (text, seed, expected) => {
    expect(murmur3(text, seed)).toBe(expected);
  });

  test.each([
    'a',
    'ab',
    'abc',
    'abcd',
    'abcde',
    'héllo',
    'Zoë',
    '日本語テキスト',
    '😀',
    'x😀yz',
    '\u07ff\u0800\uffff',
    '🏳️‍🌈',
  ])('hashes the UTF-8 bytes of %j as an independent implementation does', (text) => {
    expect(murmur3(text)).toBe(new IMurmurHash(utf8AsLatin1(text)).result() >>> 0);
  });

  test('encodes a lone surrogate as U+FFFD, as TextEncoder does', () => {
    expect(murmur3('a\ud800b')).toBe(murmur3('a\ufffdb'));
    expect(murmur3('\udc00')).toBe(murmur3('\ufffd'));
    expect(murmur3('x\ud83d')).toBe(murmur3('x\ufffd'));
  });

  test('always returns an unsigned 32-bit integer', () => {
    for (let i = 0; i < 1000; i++) {
      const hash = murmur3(`user-${i}`);
      expect(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 32).toBe(true);
    }
  });

  test.each([
    ['flag', 'user-1'],
    ['', ''],
    ['', 'abc'],
    ['abc', ''],
    ['ab', 'cdefg'],
    ['é', '😀'],
    ['x\ud83d', '\ude00y'],
  ])('hashes %j and %j together as their concatenation', (first, second) => {
    expect(murmur3Concat(first, second)).toBe(murmur3(first + second));
  });
});

describe('murmur3After (seed hashed once at compile time)', () => {
  it.each([
    ['flag-key', 'user-1'],
    ['', ''],
    ['abc', 'd'],
    ['seed', 'a much longer targeting key of many blocks 0123456789'],
    ['flägg', 'user'],
    ['flag', 'ユーザー'],
    ['flag', '😀-emoji'],
  ])('hashes seed %j then value %j exactly as murmur3Concat', (seed, value) => {
    expect(murmur3After(prepareSeed(seed), value)).toBe(murmur3Concat(seed, value));
  });
});

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/**
 * The state of one hash: text is fed one UTF-8 byte at a time, so hashing allocates no byte
 * array and two strings hash as their concatenation without building it. Each hash has its own.
 */
interface HashState {
  h1: number;
  k1: number;
  pending: number;
  length: number;
}

const start = (seed: number): HashState => ({ h1: seed | 0, k1: 0, pending: 0, length: 0 });

function pushByte(state: HashState, byte: number): void {
  state.k1 |= byte << (state.pending << 3);
  if (++state.pending === 4) {
    let k1 = Math.imul(state.k1, C1);
    k1 = (k1 << 15) | (k1 >>> 17);
    let h1 = state.h1 ^ Math.imul(k1, C2);
    h1 = (h1 << 13) | (h1 >>> 19);
    state.h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    state.k1 = 0;
    state.pending = 0;
  }
}

function feed(state: HashState, text: string): void {
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      pushByte(state, c);
      state.length += 1;
      continue;
    }
    if (c < 0x800) {
      pushByte(state, 0xc0 | (c >> 6));
      pushByte(state, 0x80 | (c & 0x3f));
      state.length += 2;
      continue;
    }
    const next = c <= 0xdbff && i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
      pushByte(state, 0xf0 | (cp >> 18));
      pushByte(state, 0x80 | ((cp >> 12) & 0x3f));
      pushByte(state, 0x80 | ((cp >> 6) & 0x3f));
      pushByte(state, 0x80 | (cp & 0x3f));
      state.length += 4;
      i++;
      continue;
    }
    // A lone surrogate has no UTF-8 form; TextEncoder (and Buffer) write U+FFFD instead.
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    pushByte(state, 0xe0 | (c >> 12));
    pushByte(state, 0x80 | ((c >> 6) & 0x3f));
    pushByte(state, 0x80 | (c & 0x3f));
    state.length += 3;
  }
}

function finish(state: HashState): number {
  let h = state.h1;
  if (state.pending > 0) h ^= mixK(state.k1);
  return avalanche(h, state.length);
}

/** MurmurHash3 x86 32-bit of the UTF-8 bytes of `text` (lone surrogates encode as U+FFFD, as TextEncoder does); an unsigned 32-bit integer. */
export function murmur3(text: string, seed = 0): number {
  const state = start(seed);
  feed(state, text);
  return finish(state);
}

/** Same as `murmur3(first + second, seed)` without building the concatenation. */
export function murmur3Concat(first: string, second: string, seed = 0): number {
  const last = first.charCodeAt(first.length - 1);
  // A surrogate pair split across the two parts only forms a character once joined.
  if (last >= 0xd800 && last <= 0xdbff) return murmur3(first + second, seed);
  const state = start(seed);
  feed(state, first);
  feed(state, second);
  return finish(state);
}

/** The hash state after the UTF-8 bytes of a seed text, so that only the bucketed value is hashed per evaluation. */
export interface PreparedSeed {
  readonly text: string;
  readonly h: number;
  readonly k: number;
  readonly pending: number;
  readonly length: number;
  readonly ascii: boolean;
}

export function prepareSeed(text: string): PreparedSeed {
  const state = start(0);
  feed(state, text);
  let ascii = true;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) ascii = false;
  return { text, h: state.h1, k: state.k1, pending: state.pending, length: state.length, ascii };
}

/** MurmurHash3's finalisation: the length mixed in, then every bit made to depend on every other. */
function avalanche(h: number, length: number): number {
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function mixK(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/** Same as murmur3Concat(seed.text, value); ASCII values take a path whose state lives in locals. */
export function murmur3After(seed: PreparedSeed, value: string): number {
  if (!seed.ascii) return murmur3Concat(seed.text, value);
  let h = seed.h;
  let k = seed.k;
  let p = seed.pending;
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c > 0x7f) return murmur3Concat(seed.text, value);
    k |= c << (p << 3);
    if (++p === 4) {
      h ^= mixK(k);
      h = (h << 13) | (h >>> 19);
      h = (Math.imul(h, 5) + 0xe6546b64) | 0;
      k = 0;
      p = 0;
    }
  }
  if (p > 0) h ^= mixK(k);
  return avalanche(h, seed.length + n);
}

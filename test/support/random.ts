// Seeded randomness for generated corpora (differential tests, the scale benchmark): every run
// draws the same values, so a failure names a seed that reproduces it.

export type Random = () => number;

/** Mulberry32: a small, fast PRNG of 32-bit state; values in [0, 1). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, drawn evenly. */
export const pick = <T>(random: Random, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;

/** True with probability `p`. */
export const chance = (random: Random, p: number): boolean => random() < p;

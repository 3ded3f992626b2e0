import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from './clock.ts';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
let lastTime = 0;
let lastRandom = 0n;

/**
 * A new opaque id with a type prefix (`flg_…`): 48 bits of milliseconds then 80 random bits,
 * in Crockford base32, so ids sort by creation time (and strictly so within this process).
 */
export function newId(prefix: string, clock: Clock = systemClock): string {
  const now = clock();
  let random: bigint;
  if (now <= lastTime) {
    random = lastRandom + 1n;
  } else {
    random = BigInt(`0x${randomBytes(10).toString('hex')}`);
    lastTime = now;
  }
  lastRandom = random;
  let value = (BigInt(lastTime) << 80n) | (random & ((1n << 80n) - 1n));
  let text = '';
  for (let i = 0; i < 26; i++) {
    text = CROCKFORD[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return `${prefix}_${text}`;
}

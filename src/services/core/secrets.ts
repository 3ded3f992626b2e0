import { hash, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'fsk_';
const PREFIX_LENGTH = 12;

/** A new API key secret: `fsk_` and 32 random bytes (256 bits) in base64url. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Secrets carry 256 bits of randomness, so one SHA-256 is enough to store them: no guessable
 * input for a slow hash to protect, and lookups stay fast on the evaluation path.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

const GENERATED = /^fsk_[A-Za-z0-9_-]{43}$/;

/**
 * The part of a secret shown in lists and the audit log so people can tell keys apart: 8 of
 * the 43 random characters of a generated one (leaving 210 bits unknown), but only `fsk_` or
 * the first 4 characters of one an operator chose (FLAGSTAFF_ADMIN_KEY), whose strength we
 * cannot know.
 */
export const secretPrefix = (secret: string) =>
  GENERATED.test(secret) ? secret.slice(0, PREFIX_LENGTH) : secret.slice(0, 4);

import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * flagd sync credentials (docs/decisions/1771): what a flagd sync selector carries instead of
 * an API key, because flagd's in-process providers copy the selector into every result's flag
 * metadata. `fsc.<key id>.<base64url HMAC-SHA256(derivation key, scope)>`, where the scope is
 * the selector's `<project>/<environment>`: it names its key (so a node finds the key without
 * the database) and proves nothing beyond reading that one scope's flag definitions. The
 * derivation key is the server secret's over the key's secret hash (`ServerSecret.derive`,
 * decision 1880), so nothing a backup holds is enough to make one. Nothing is stored; revoking
 * the key (its hash leaves every node) revokes every credential derived from it.
 */
const PREFIX = 'fsc.';

const mac = (derivationKey: string, scope: string) =>
  createHmac('sha256', derivationKey).update(`flagd-sync\n${scope}`).digest('base64url');

/** The selector scope a credential is derived for. */
export const syncScope = (project: string, environment: string): string => `${project}/${environment}`;

export function deriveSyncCredential(keyId: string, derivationKey: string, scope: string): string {
  return `${PREFIX}${keyId}.${mac(derivationKey, scope)}`;
}

/** The key id a credential names (unverified), or undefined when the text is not a sync credential. */
export function syncCredentialKeyId(credential: string): string | undefined {
  if (!credential.startsWith(PREFIX)) return undefined;
  const rest = credential.slice(PREFIX.length);
  const dot = rest.lastIndexOf('.');
  return dot <= 0 || dot === rest.length - 1 ? undefined : rest.slice(0, dot);
}

/** Whether `credential` was derived with `derivationKey` for `scope` (constant time). */
export function isSyncCredentialFor(credential: string, derivationKey: string, scope: string): boolean {
  const keyId = syncCredentialKeyId(credential);
  if (keyId === undefined) return false;
  const expected = Buffer.from(deriveSyncCredential(keyId, derivationKey, scope));
  const actual = Buffer.from(credential);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  type Hmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** What a subkey of the server secret is for: each purpose has a key of its own (docs/decisions/1880). */
export type SecretPurpose = 'flagd-sync' | 'stream-token' | 'backup' | 'webhook-secret' | 'fingerprint';

/** The shortest FLAGSTAFF_SECRET_KEY (or key file) taken: 32 characters, like FLAGSTAFF_ADMIN_KEY. */
export const MIN_SECRET_KEY_LENGTH = 32;

/** Sealed text: `aes256gcm.<iv>.<tag>.<ciphertext>`, each base64url (12-byte IV, 16-byte tag). */
const SEALED = /^aes256gcm\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]*)$/;

/** Sealed text that does not open under this server's key. */
export class UnsealError extends Error {
  override name = 'UnsealError';
}

/**
 * The server secret (docs/decisions/1880): kept outside the database (FLAGSTAFF_SECRET_KEY or a
 * key file beside the data), so that nothing a backup or a database dump holds is enough to
 * derive a credential, forge a signature or read a sealed secret. Every derivation and signature
 * uses a subkey of it made with HKDF-SHA-256 for one purpose, so no two uses share a key.
 */
export class ServerSecret {
  readonly #keys = new Map<SecretPurpose, Buffer>();
  readonly #material: Buffer;

  private constructor(material: Buffer) {
    this.#material = material;
  }

  /** From FLAGSTAFF_SECRET_KEY or a key file's text (≥ 32 characters, checked by the caller). */
  static fromText(text: string): ServerSecret {
    return new ServerSecret(Buffer.from(text, 'utf8'));
  }

  /** A new random secret, as a key file holds it: 32 random bytes in base64url (43 characters). */
  static generateText(): string {
    return randomBytes(32).toString('base64url');
  }

  #key(purpose: SecretPurpose): Buffer {
    let key = this.#keys.get(purpose);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', this.#material, 'flagstaff', purpose, 32));
      this.#keys.set(purpose, key);
    }
    return key;
  }

  /** Names the secret without revealing it (in backups and messages): 16 hex characters. */
  get fingerprint(): string {
    return createHmac('sha256', this.#key('fingerprint')).digest('hex').slice(0, 16);
  }

  /** A key of one API key for one purpose: HMAC(subkey, key's secret hash), hex. Revoking the key ends it. */
  derive(purpose: 'flagd-sync' | 'stream-token', secretHash: string): string {
    return createHmac('sha256', this.#key(purpose)).update(secretHash).digest('hex');
  }

  /** An HMAC-SHA-256 over data fed to it in pieces (a backup file, line by line). */
  mac(purpose: 'backup'): Hmac {
    return createHmac('sha256', this.#key(purpose));
  }

  /** Whether two MACs (hex) are equal, in constant time. */
  static sameMac(a: string, b: string): boolean {
    const left = Buffer.from(a);
    const right = Buffer.from(b);
    return left.length === right.length && timingSafeEqual(left, right);
  }

  /** Encrypts `plaintext` with AES-256-GCM under a fresh IV. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key('webhook-secret'), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `aes256gcm.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
  }

  /** Whether `text` has the form `seal` writes (so it is not a plaintext secret from before sealing). */
  static isSealed(text: string): boolean {
    return SEALED.test(text);
  }

  /** The plaintext of sealed text; throws UnsealError when it was sealed under another key or altered. */
  open(sealed: string): string {
    const [, iv = '', tag = '', body = ''] = SEALED.exec(sealed) ?? [];
    if (iv === '') throw new UnsealError('the text is not sealed');
    try {
      const decipher = createDecipheriv(
        'aes-256-gcm',
        this.#key('webhook-secret'),
        Buffer.from(iv, 'base64url'),
      );
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new UnsealError('the sealed text does not open with this server key (another key, or altered)');
    }
  }
}

let processSecret: ServerSecret | undefined;

/**
 * A secret made for this process only, for what runs without a configured one (tests, benchmarks,
 * one-off tools that derive nothing that outlives them). `flagstaff serve` always passes its own.
 */
export function processServerSecret(): ServerSecret {
  processSecret ??= ServerSecret.fromText(ServerSecret.generateText());
  return processSecret;
}

import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../config.ts';
import { MIN_SECRET_KEY_LENGTH, ServerSecret } from '../domain/server-secret.ts';

/** The key file's name, in the folder of the SQLite database (or ./data for PostgreSQL). */
export const KEY_FILE_NAME = 'flagstaff-secret.key';

/** Where the server secret came from, for the start-up line and the messages about it. */
export interface LoadedServerSecret {
  readonly secret: ServerSecret;
  /** `variable`: FLAGSTAFF_SECRET_KEY; `file`: the key file; `memory`: made for an in-memory database. */
  readonly origin: 'variable' | 'file' | 'memory';
  /** The key file read or created (origin `file`). */
  readonly file?: string;
  /** The key file was created now. */
  readonly created: boolean;
  /** Something the operator should fix, for the log (never the secret). */
  readonly warning?: string;
}

/** The key file for a database URL: beside a SQLite file; ./data for PostgreSQL; none in memory. */
export function keyFilePath(databaseUrl: string): string | undefined {
  if (databaseUrl === 'sqlite::memory:') return undefined;
  if (databaseUrl.startsWith('sqlite:')) return join(dirname(resolve(databaseUrl.slice(7))), KEY_FILE_NAME);
  return resolve('data', KEY_FILE_NAME);
}

const POSTGRES_WARNING =
  'FLAGSTAFF_SECRET_KEY is not set: this node keeps its server key in a file of its own. Nodes sharing a PostgreSQL database must share one key: set FLAGSTAFF_SECRET_KEY to the same value on every node (docs/decisions/1880)';

/**
 * The server secret (docs/decisions/1880): FLAGSTAFF_SECRET_KEY when set; else the key file
 * beside the data, created on first use (32 random bytes, mode 0600). An in-memory database gets
 * a key for this process.
 */
export async function loadServerSecret(
  secretKey: string | undefined,
  databaseUrl: string,
): Promise<LoadedServerSecret> {
  return (await serverSecretOf(secretKey, databaseUrl, true)) as LoadedServerSecret;
}

/** The server secret as `loadServerSecret` finds it, but never creating a key file: undefined without one. */
export function existingServerSecret(
  secretKey: string | undefined,
  databaseUrl: string,
): Promise<LoadedServerSecret | undefined> {
  return serverSecretOf(secretKey, databaseUrl, false);
}

async function serverSecretOf(
  secretKey: string | undefined,
  databaseUrl: string,
  create: boolean,
): Promise<LoadedServerSecret | undefined> {
  if (secretKey !== undefined)
    return { secret: ServerSecret.fromText(secretKey), origin: 'variable', created: false };
  const file = keyFilePath(databaseUrl);
  if (file === undefined) {
    return { secret: ServerSecret.fromText(ServerSecret.generateText()), origin: 'memory', created: false };
  }
  const postgres = !databaseUrl.startsWith('sqlite:');
  const existing = await readKeyFile(file);
  if (existing === undefined && !create) return undefined;
  const created = existing === undefined && (await createKeyFile(file));
  // Another process may have created it between the read and the write: its key is the one.
  const text = existing?.text ?? (await readKeyFile(file))?.text;
  if (text === undefined) throw new ConfigError(`the key file ${file} could not be read`);
  const exposed = existing !== undefined && (existing.mode & 0o077) !== 0;
  const warning = postgres
    ? POSTGRES_WARNING
    : exposed
      ? `the key file ${file} can be read by other users: chmod 600 it`
      : undefined;
  return {
    secret: ServerSecret.fromText(text),
    origin: 'file',
    file,
    created,
    ...(warning ? { warning } : {}),
  };
}

async function readKeyFile(file: string): Promise<{ text: string; mode: number } | undefined> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(
      `the key file ${file} cannot be read (${(error as Error).message}): fix its permissions, or set FLAGSTAFF_SECRET_KEY`,
    );
  }
  if (text.length < MIN_SECRET_KEY_LENGTH) {
    throw new ConfigError(
      `the key file ${file} holds fewer than ${MIN_SECRET_KEY_LENGTH} characters: restore the file the server made, or set FLAGSTAFF_SECRET_KEY`,
    );
  }
  return { text, mode: (await stat(file)).mode };
}

/**
 * Writes a new key file unless one exists; whether this call wrote it. Written aside, then linked
 * into place (which fails if the name exists): nodes starting at once never read a half-written
 * file, and all of them end up with the one key.
 */
async function createKeyFile(file: string): Promise<boolean> {
  const aside = `${file}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(aside, `${ServerSecret.generateText()}\n`, { flag: 'wx', mode: 0o600 });
    // The mode given to writeFile is narrowed by the umask, never widened: make sure it is 0600.
    await chmod(aside, 0o600);
    await link(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new ConfigError(
      `the key file ${file} cannot be created (${(error as Error).message}): set FLAGSTAFF_SECRET_KEY instead`,
    );
  } finally {
    await rm(aside, { force: true });
  }
}

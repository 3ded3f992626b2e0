import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EDGE_PROTOCOL } from '../services/serving/edge-upstream.ts';
import type { MirrorState } from './upstream-mirror.ts';

const FILE = 'snapshot.json';

/** What a read of the cache found: the state, nothing (first start), or why it was refused. */
export type CacheRead =
  | { readonly kind: 'loaded'; readonly state: MirrorState; readonly savedAt: string }
  | { readonly kind: 'absent' }
  | { readonly kind: 'refused'; readonly reason: string };

const checksumOf = (body: string): string => createHash('sha256').update(body).digest('hex');

/**
 * The last snapshot an edge received, on disk (FLAGSTAFF_EDGE_CACHE, decision 1984): written to
 * a temporary file and renamed, so a crash leaves the old file or the new one, never half of
 * one; read back only when its SHA-256 checksum and protocol match, so a damaged file is refused
 * rather than served.
 */
export class SnapshotCache {
  readonly #path: string;

  constructor(directory: string) {
    this.#path = join(directory, FILE);
  }

  get path(): string {
    return this.#path;
  }

  async save(state: MirrorState, savedAt: Date = new Date()): Promise<void> {
    const body = JSON.stringify(state);
    const envelope = JSON.stringify({
      protocol: EDGE_PROTOCOL,
      savedAt: savedAt.toISOString(),
      checksum: checksumOf(body),
      body,
    });
    const temporary = `${this.#path}.${process.pid}.tmp`;
    await writeFile(temporary, envelope);
    await rename(temporary, this.#path);
  }

  async read(): Promise<CacheRead> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
      return { kind: 'refused', reason: (error as Error).message };
    }
    let envelope: { protocol?: unknown; savedAt?: unknown; checksum?: unknown; body?: unknown };
    try {
      envelope = JSON.parse(text);
    } catch {
      return { kind: 'refused', reason: 'it is not JSON' };
    }
    if (envelope.protocol !== EDGE_PROTOCOL) {
      return { kind: 'refused', reason: `it was written for protocol ${String(envelope.protocol)}` };
    }
    if (typeof envelope.body !== 'string' || checksumOf(envelope.body) !== envelope.checksum) {
      return { kind: 'refused', reason: 'its checksum does not match' };
    }
    return {
      kind: 'loaded',
      state: JSON.parse(envelope.body) as MirrorState,
      savedAt: String(envelope.savedAt),
    };
  }
}

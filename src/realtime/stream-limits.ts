import { readFileSync } from 'node:fs';

/** How many event streams one node and one API key may hold open (FLAGSTAFF_STREAMS_PER_NODE, …_PER_KEY). */
export interface StreamLimits {
  readonly perNode: number;
  readonly perKey: number;
}

/** Descriptors kept for everything but streams: the database pool, Redis, files, other requests. */
export const DESCRIPTOR_RESERVE = 1024;
/** Where the limit cannot be read (not Linux): assumed, so the cap stays modest. */
export const ASSUMED_DESCRIPTOR_LIMIT = 4096;
export const DEFAULT_STREAMS_PER_NODE = 10_000;
export const DEFAULT_STREAMS_PER_KEY = 5_000;

/**
 * The process's open-file limit (soft), read from /proc/self/limits on Linux — a plain file
 * read, no child process; elsewhere, or when it says unlimited, ASSUMED_DESCRIPTOR_LIMIT or
 * Infinity.
 */
export function descriptorLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number {
  try {
    const line = read()
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return Number.POSITIVE_INFINITY;
    if (soft !== undefined && /^\d+$/.test(soft)) return Number(soft);
  } catch {}
  return ASSUMED_DESCRIPTOR_LIMIT;
}

/**
 * The caps to enforce: the configured (or default) ones, with the per-node cap kept under the
 * descriptor limit less a reserve — every stream holds a socket, and a node out of descriptors
 * cannot even answer a 429 — and the per-key cap under the per-node one.
 */
export function streamLimits(
  configured: { readonly perNode?: number | undefined; readonly perKey?: number | undefined },
  descriptors: number,
): StreamLimits & { readonly lowered: boolean } {
  const wanted = configured.perNode ?? DEFAULT_STREAMS_PER_NODE;
  const room = Math.max(1, descriptors - DESCRIPTOR_RESERVE);
  const perNode = Math.min(wanted, room);
  return {
    perNode,
    perKey: Math.min(configured.perKey ?? DEFAULT_STREAMS_PER_KEY, perNode),
    lowered: configured.perNode !== undefined && perNode < wanted,
  };
}

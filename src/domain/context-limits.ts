import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts';

/** The largest evaluation context a request may send, as UTF-8 JSON (docs/product.md §4.1). */
export const CONTEXT_MAX_BYTES = 8 * 1024;

/**
 * What is wrong with an evaluation context that breaks a limit (`must be at most 8 KiB`), or
 * undefined. Depth first: measuring the size of a context nested 10,000 deep would overflow
 * the stack. The REST routes and OFREP both ask it, each answering in its own shape.
 */
export function contextLimitBreach(context: unknown): string | undefined {
  if (nestsDeeperThan(context)) return `must nest at most ${MAX_JSON_DEPTH} levels deep`;
  if (Buffer.byteLength(JSON.stringify(context)) > CONTEXT_MAX_BYTES) return 'must be at most 8 KiB';
  return undefined;
}

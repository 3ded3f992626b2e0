import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest, onRouteHookHandler } from 'fastify';
import { bodyEtag, CODINGS, type Coding, codedEtag, ifNoneMatchHits } from './etag.ts';

// Bulk answers (OFREP bulk, flagd export, the flag list) compressed when the client asks, each
// compressed body made once per ETag and encoding and kept in a bounded cache (decision 2001).
// Single evaluations never come here: their bodies are a few hundred bytes, and compressing
// them would cost more than it saves.

/**
 * The coding to answer with for an Accept-Encoding header (RFC 9110 §12.5.3): the highest
 * q-value among br and gzip (x-gzip is gzip), `*` standing for any not named; none when neither
 * is acceptable (identity then, never 406: the plain body is always a fine answer).
 */
export function negotiateCoding(header: string | undefined): Coding | undefined {
  if (header === undefined || header === '') return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name === 'x-gzip' ? 'gzip' : name, Number.isFinite(weight) ? weight : 0);
  }
  let best: Coding | undefined;
  let bestWeight = 0;
  for (const coding of CODINGS) {
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  return best;
}

const compressors: Record<Coding, (body: string) => Promise<Buffer>> = {
  // Quality 4, not brotli's default 11: on a 1 MB bulk answer it takes ~7 ms rather than ~2 s and
  // is within 25 % of the smallest size (docs/performance.md, "Compressed bulk answers").
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 4,
        [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body),
      },
    }),
  gzip: (body) => promisify(gzip)(body),
};

/**
 * Compressed bodies by ETag and coding, least recently used dropped first once they hold more
 * than `maxBytes`. A body asked for while it is being compressed waits for that compression.
 * Compression runs on libuv's thread pool, off the event loop that serves evaluations.
 */
export class CompressedBodies {
  readonly #maxBytes: number;
  readonly #bodies = new Map<string, Buffer>();
  readonly #pending = new Map<string, Promise<Buffer>>();
  #bytes = 0;
  /** How many bodies were compressed (not taken from the cache): for tests and the bench. */
  made = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  async get(etag: string, coding: Coding, body: string): Promise<Buffer> {
    const key = `${coding} ${etag}`;
    const cached = this.#bodies.get(key);
    if (cached !== undefined) {
      // Most recently used last, so the first in the map is the one to drop.
      this.#bodies.delete(key);
      this.#bodies.set(key, cached);
      return cached;
    }
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    const made = compressors[coding](body).finally(() => this.#pending.delete(key));
    this.#pending.set(key, made);
    this.made++;
    const compressed = await made;
    this.#keep(key, compressed);
    return compressed;
  }

  #keep(key: string, compressed: Buffer): void {
    if (compressed.length > this.#maxBytes) return;
    this.#bodies.set(key, compressed);
    this.#bytes += compressed.length;
    for (const [oldest, body] of this.#bodies) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#bodies.delete(oldest);
      this.#bytes -= body.length;
    }
  }
}

/**
 * The node's cache: 8 MiB holds the 10,000-flag bulk answer of a few hundred users (~100 KB
 * each in brotli), and counts in the node's memory (docs/performance.md, "Memory per part").
 */
export const compressedBodies = new CompressedBodies(8 * 1024 * 1024);

/** Adds `accept-encoding` to the reply's Vary, keeping what is there. */
function varyOnEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const listed = typeof vary === 'string' && vary !== '' ? `${vary}, ` : '';
  if (!/accept-encoding/i.test(listed)) reply.header('vary', `${listed}Accept-Encoding`);
}

/**
 * An onSend hook for bulk answers: a 200 whose client accepts br or gzip is sent compressed
 * from the cache, under its coded ETag; a 304 carries the coded ETag the client would hold.
 * Answers of other statuses (errors) pass untouched.
 */
export async function compressBulkAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const status = reply.statusCode;
  if (status !== 200 && status !== 304) return payload;
  varyOnEncoding(reply);
  const coding = negotiateCoding(request.headers['accept-encoding']);
  if (coding === undefined) return payload;
  const etag = reply.getHeader('etag');
  if (typeof etag === 'string') reply.header('etag', codedEtag(etag, coding));
  if (status === 304 || typeof payload !== 'string') return payload;
  const compressed = await compressedBodies.get(
    typeof etag === 'string' ? etag : bodyEtag(payload),
    coding,
    payload,
  );
  reply.header('content-encoding', coding);
  return compressed;
}

/**
 * Sends a bulk answer's text with its body ETag, or 304 when the request's If-None-Match holds
 * it (in any coding); `compressBulkAnswer`, the route's onSend hook, then codes it.
 */
export function sendWithEtag(
  request: FastifyRequest,
  reply: FastifyReply,
  body: string,
  type: string,
): FastifyReply {
  const etag = bodyEtag(body);
  reply.header('etag', etag);
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(type).send(body);
}

/**
 * An onRoute hook giving one route of a plugin `compressBulkAnswer` as its onSend hook, for a
 * route whose options a plugin builds elsewhere (the flag list): `app.addHook('onRoute',
 * compressAnswersOf('GET', '/projects/:projectId/flags'))`.
 */
export function compressAnswersOf(method: string, path: string): onRouteHookHandler {
  return (route) => {
    if (route.method !== method || route.routePath !== path) return;
    const onSend = route.onSend === undefined ? [] : [route.onSend].flat();
    route.onSend = [...onSend, compressBulkAnswer];
  };
}

import type { Writable } from 'node:stream';
import type { Principal } from '../domain/api-key.ts';
import type { KeyRevocations } from '../plane/key-revocations.ts';
import { EDGE_PROTOCOL, type EdgeUpstreamService } from '../services/serving/edge-upstream.ts';
import { HEARTBEAT_MS } from './sse-streams.ts';

/** Projects that may have appeared or gone in the key's scope are looked for this often. */
const SCOPE_CHECK_MS = 1_000;

/**
 * The revisions an edge holds, as the SSE id of every message: sent back as Last-Event-ID when it
 * reconnects, so only projects that moved since are sent again (decision 1981).
 */
export function cursorOf(revisions: ReadonlyMap<string, number>): string {
  return Buffer.from(JSON.stringify([...revisions])).toString('base64url');
}

export function revisionsOf(cursor: string | undefined): Map<string, number> {
  if (cursor === undefined || cursor === '') return new Map();
  try {
    const pairs: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (!Array.isArray(pairs)) return new Map();
    return new Map(
      pairs.filter(
        (pair): pair is [string, number] =>
          Array.isArray(pair) && typeof pair[0] === 'string' && Number.isInteger(pair[1]),
      ),
    );
  } catch {
    return new Map();
  }
}

const message = (event: string, data: unknown, id?: string): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * One edge's upstream stream (SPEC §14): `hello` (protocol), every project of its scope that it
 * does not hold at that revision, its keys (hashes), `ready`; then each change as it lands,
 * the keys again whenever they change, and a heartbeat comment. Ends when its key is revoked.
 */
export class EdgeStreams {
  readonly #upstream: EdgeUpstreamService;
  readonly #revocations: KeyRevocations;
  readonly #heartbeatMs: number;
  /** Each open stream's close, so a node shutting down ends them (the edges reconnect, elsewhere or later). */
  readonly #closes = new Set<() => void>();

  constructor(upstream: EdgeUpstreamService, revocations: KeyRevocations, heartbeatMs = HEARTBEAT_MS) {
    this.#upstream = upstream;
    this.#revocations = revocations;
    this.#heartbeatMs = heartbeatMs;
  }

  get size(): number {
    return this.#closes.size;
  }

  closeAll(): void {
    for (const close of [...this.#closes]) close();
  }

  /** `untilReady`: the stream ends after `ready`, a snapshot read once (diagnostics, the authorisation matrix). */
  open(sink: Writable, principal: Principal, lastEventId: string | undefined, untilReady = false): void {
    const sent = revisionsOf(lastEventId);
    const unsubscribes = new Map<string, () => void>();
    let closed = false;
    // One sync at a time: a burst of changes is sent as one pass over what moved.
    let syncing: Promise<void> | undefined;
    let again = false;

    const sync = async (): Promise<void> => {
      const projects = this.#upstream.projectsOf(principal);
      for (const [id, revision] of projects) {
        if (!unsubscribes.has(id)) unsubscribes.set(id, this.#upstream.subscribe(id, request));
        if (sent.get(id) === revision) continue;
        const project = await this.#upstream.project(principal, id);
        if (closed) return;
        if (project === undefined) continue;
        sent.set(id, project.revision);
        sink.write(message('project', project, cursorOf(sent)));
      }
      for (const id of [...sent.keys()]) {
        if (projects.has(id)) continue;
        sent.delete(id);
        unsubscribes.get(id)?.();
        unsubscribes.delete(id);
        sink.write(message('removed', { id }, cursorOf(sent)));
      }
    };
    const request = (): void => {
      if (closed) return;
      if (syncing !== undefined) {
        again = true;
        return;
      }
      syncing = sync()
        .catch(() => undefined)
        .finally(() => {
          syncing = undefined;
          if (again) {
            again = false;
            request();
          }
        });
    };
    const sendKeys = (): void => {
      if (!closed) sink.write(message('keys', { keys: this.#upstream.keysOf(principal) }));
    };

    const heartbeat = setInterval(() => sink.write(': heartbeat\n\n'), this.#heartbeatMs);
    const scopeCheck = setInterval(request, SCOPE_CHECK_MS);
    heartbeat.unref();
    scopeCheck.unref();
    const unwatchKeys = this.#upstream.watchKeys(sendKeys);
    const close = (): void => {
      if (closed) return;
      closed = true;
      this.#closes.delete(close);
      clearInterval(heartbeat);
      clearInterval(scopeCheck);
      unwatchKeys();
      unrevoked();
      for (const unsubscribe of unsubscribes.values()) unsubscribe();
      sink.end(() => sink.destroy());
    };
    this.#closes.add(close);
    const unrevoked = this.#revocations.subscribe(principal.id, close);
    sink.once('close', close);
    sink.once('error', close);

    sink.write(message('hello', { protocol: EDGE_PROTOCOL }));
    syncing = sync()
      .then(() => {
        sendKeys();
        if (!closed) sink.write(message('ready', {}, cursorOf(sent)));
        if (untilReady) close();
      })
      .catch(close)
      .finally(() => {
        syncing = undefined;
        if (again) {
          again = false;
          request();
        }
      });
  }
}

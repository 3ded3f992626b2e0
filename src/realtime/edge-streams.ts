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
    const stream = new EdgeStream(sink, principal, this.#upstream, revisionsOf(lastEventId));
    const heartbeat = setInterval(() => sink.write(': heartbeat\n\n'), this.#heartbeatMs);
    const scopeCheck = setInterval(() => stream.request(), SCOPE_CHECK_MS);
    heartbeat.unref();
    scopeCheck.unref();
    const unwatchKeys = this.#upstream.watchKeys(() => stream.sendKeys());
    const close = (): void => {
      if (!stream.end()) return;
      this.#closes.delete(close);
      clearInterval(heartbeat);
      clearInterval(scopeCheck);
      unwatchKeys();
      unrevoked();
    };
    this.#closes.add(close);
    const unrevoked = this.#revocations.subscribe(principal.id, close);
    sink.once('close', close);
    sink.once('error', close);
    stream.start(untilReady ? close : undefined, close);
  }
}

/** One open stream: what it sent (the revisions per project) and the one sync pass under way. */
class EdgeStream {
  readonly #sink: Writable;
  readonly #principal: Principal;
  readonly #upstream: EdgeUpstreamService;
  readonly #sent: Map<string, number>;
  readonly #unsubscribes = new Map<string, () => void>();
  #closed = false;
  // One sync at a time: a burst of changes is sent as one pass over what moved.
  #syncing: Promise<void> | undefined;
  #again = false;

  constructor(
    sink: Writable,
    principal: Principal,
    upstream: EdgeUpstreamService,
    sent: Map<string, number>,
  ) {
    this.#sink = sink;
    this.#principal = principal;
    this.#upstream = upstream;
    this.#sent = sent;
  }

  /** `hello`, what the edge lacks, the keys, `ready`; then `afterReady` (the stream that ends there). */
  start(afterReady: (() => void) | undefined, failed: () => void): void {
    this.#sink.write(message('hello', { protocol: EDGE_PROTOCOL }));
    this.#run(
      this.#sync().then(() => {
        this.sendKeys();
        if (!this.#closed) this.#sink.write(message('ready', {}, cursorOf(this.#sent)));
        afterReady?.();
      }),
      failed,
    );
  }

  /** A project of the scope changed (or may have appeared or gone): send what moved. */
  request(): void {
    if (this.#closed) return;
    if (this.#syncing !== undefined) {
      this.#again = true;
      return;
    }
    this.#run(this.#sync(), () => undefined);
  }

  sendKeys(): void {
    if (!this.#closed) this.#sink.write(message('keys', { keys: this.#upstream.keysOf(this.#principal) }));
  }

  /** Ends the stream; false when it had ended already. */
  end(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    for (const unsubscribe of this.#unsubscribes.values()) unsubscribe();
    this.#sink.end(() => this.#sink.destroy());
    return true;
  }

  #run(pass: Promise<void>, failed: () => void): void {
    this.#syncing = pass.catch(failed).finally(() => {
      this.#syncing = undefined;
      if (this.#again) {
        this.#again = false;
        this.request();
      }
    });
  }

  async #sync(): Promise<void> {
    await this.#upstream.loadScope(this.#principal);
    const projects = this.#upstream.projectsOf(this.#principal);
    for (const [id, revision] of projects) {
      if (!this.#unsubscribes.has(id))
        this.#unsubscribes.set(
          id,
          this.#upstream.subscribe(id, () => this.request()),
        );
      if (this.#sent.get(id) === revision) continue;
      const project = await this.#upstream.project(this.#principal, id);
      if (this.#closed) return;
      if (project === undefined) continue;
      this.#sent.set(id, project.revision);
      this.#sink.write(message('project', project, cursorOf(this.#sent)));
    }
    for (const id of [...this.#sent.keys()]) {
      if (projects.has(id)) continue;
      this.#sent.delete(id);
      this.#unsubscribes.get(id)?.();
      this.#unsubscribes.delete(id);
      this.#sink.write(message('removed', { id }, cursorOf(this.#sent)));
    }
  }
}

import type { ServerResponse } from 'node:http';
import type { KeyRevocations } from './key-revocations.ts';
import type { ProjectChange, ProjectChanges } from './project-changes.ts';
import type { StreamGrant } from './stream-access.ts';

/** SPEC §9: a comment every 15 s keeps proxies and clients from calling the stream dead. */
export const HEARTBEAT_MS = 15_000;
/** How long after connecting a client reconnects once the stream drops (the SSE `retry` field). */
const RETRY_MS = 2_000;
/**
 * A client that connects without Last-Event-ID fetched its evaluations just before; a change
 * this recent may have landed in between, so it is told to fetch again (a 304 if not).
 */
const RECENT_CHANGE_MS = 30_000;

interface OpenStream {
  readonly response: ServerResponse;
  readonly grant: StreamGrant;
  /** The newest revision the client was told of (or knew when it connected). */
  sentRevision: number;
  /** The newest revision it has not been told of yet, while its socket is full. */
  pendingRevision: number;
  congested: boolean;
  /** Heartbeats missed in a row because the socket stayed full. */
  stalledBeats: number;
  readonly cleanup: (() => void)[];
}

const refetch = (change: { revision: number; at: number }) =>
  `id: ${change.revision}\ndata: {"type":"refetchEvaluation","etag":"${change.revision}","lastModified":${Math.floor(change.at / 1000)}}\n\n`;

/**
 * The open OFREP event streams of this node (SPEC §9). Each gets a `refetchEvaluation`
 * message when its project changes; a slow client is never buffered for: while its socket is
 * full only the newest revision is remembered, and sent when it drains.
 */
export class SseStreams {
  readonly #changes: ProjectChanges;
  readonly #revocations: KeyRevocations;
  readonly #streams = new Set<OpenStream>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(changes: ProjectChanges, revocations: KeyRevocations, heartbeatMs = HEARTBEAT_MS) {
    this.#changes = changes;
    this.#revocations = revocations;
    this.#heartbeat = setInterval(() => this.#beat(), heartbeatMs);
    this.#heartbeat.unref();
  }

  get size(): number {
    return this.#streams.size;
  }

  /**
   * Takes over `response` (headers not sent yet) as the stream of `grant`. `lastEventId` is the
   * Last-Event-ID a reconnecting client sent: the revision it was last told of.
   */
  open(
    response: ServerResponse,
    grant: StreamGrant,
    headers: Record<string, string>,
    lastEventId?: string,
  ): void {
    const current = this.#changes.revisionOf(grant.projectId) ?? 0;
    const known = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const stream: OpenStream = {
      response,
      grant,
      sentRevision: current,
      pendingRevision: current,
      congested: false,
      stalledBeats: 0,
      cleanup: [],
    };
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // nginx and similar proxies buffer responses unless told not to.
      'x-accel-buffering': 'no',
    });
    // `id` alone sets the client's Last-Event-ID without dispatching an event, so a reconnect says what it knew.
    response.write(`retry: ${RETRY_MS}\nid: ${current}\n\n`);
    this.#streams.add(stream);
    const lastChange = this.#changes.changedAt(grant.projectId) ?? 0;
    const missed = known === undefined ? Date.now() - lastChange < RECENT_CHANGE_MS : known < current;
    if (missed && current > 0) this.#send(stream, { revision: current, at: lastChange || Date.now() });

    stream.cleanup.push(
      this.#changes.subscribe(grant.projectId, (change) => this.#changed(stream, change)),
      this.#revocations.subscribe(grant.keyId, () => this.#end(stream)),
    );
    const untilEnd = grant.endsAt * 1000 - Date.now();
    // setTimeout holds at most ~24.8 days; a longer-lived stream is ended by the next token anyway.
    const timer = setTimeout(() => this.#end(stream), Math.min(Math.max(untilEnd, 0), 2 ** 31 - 1));
    timer.unref();
    stream.cleanup.push(() => clearTimeout(timer));
    const onDrain = () => {
      stream.congested = false;
      stream.stalledBeats = 0;
      if (stream.pendingRevision > stream.sentRevision) {
        this.#send(stream, { revision: stream.pendingRevision, at: Date.now() });
      }
    };
    response.on('drain', onDrain);
    response.once('close', () => this.#forget(stream));
  }

  /** Ends every stream (shutdown); clients reconnect to another node. */
  closeAll(): void {
    clearInterval(this.#heartbeat);
    for (const stream of [...this.#streams]) this.#end(stream);
  }

  #changed(stream: OpenStream, change: ProjectChange): void {
    if (change.revision <= stream.sentRevision) return;
    if (stream.congested) {
      stream.pendingRevision = Math.max(stream.pendingRevision, change.revision);
      return;
    }
    this.#send(stream, change);
  }

  #send(stream: OpenStream, change: { revision: number; at: number }): void {
    stream.sentRevision = change.revision;
    stream.pendingRevision = change.revision;
    if (!stream.response.write(refetch(change))) stream.congested = true;
  }

  #beat(): void {
    for (const stream of this.#streams) {
      if (stream.congested) {
        // A client that read nothing for two heartbeats is gone or stuck: free what it holds.
        if (++stream.stalledBeats >= 2) this.#end(stream);
        continue;
      }
      if (!stream.response.write(': heartbeat\n\n')) stream.congested = true;
    }
  }

  #end(stream: OpenStream): void {
    this.#forget(stream);
    stream.response.end();
  }

  #forget(stream: OpenStream): void {
    if (!this.#streams.delete(stream)) return;
    for (const cleanup of stream.cleanup) cleanup();
  }
}

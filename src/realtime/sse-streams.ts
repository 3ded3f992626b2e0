import type { Writable } from 'node:stream';
import { type Clock, systemClock } from '../domain/clock.ts';
import type { KeyRevocations } from '../plane/key-revocations.ts';
import type { ProjectChange, ProjectChanges } from '../plane/project-changes.ts';
import type { StreamGrant } from './stream-access.ts';
import { TopicGroups } from './topic-groups.ts';

/** docs/product.md §9: a comment every 15 s keeps proxies and clients from calling the stream dead. */
export const HEARTBEAT_MS = 15_000;
/** How long after connecting a client reconnects once the stream drops (the SSE `retry` field). */
const RETRY_MS = 2_000;
/** At shutdown: reconnect soon, to another node behind the same address (docs/decisions/1731). */
const RETRY_ON_SHUTDOWN = Buffer.from('retry: 500\n\n');
/**
 * A client that connects without Last-Event-ID fetched its evaluations just before; a change
 * this recent may have landed in between, so it is told to fetch again (a 304 if not).
 */
const RECENT_CHANGE_MS = 30_000;
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/**
 * One open stream: its connection and what it must remember, nothing more (thousands are held
 * at once; the claims' other fields, the request and its headers are let go after the handshake).
 */
interface OpenStream {
  readonly sink: Writable;
  /** The key and project, as the groups hold them (set once the stream joins them). */
  keyId: string;
  projectId: string;
  /** Unix seconds: when the token or key expires. */
  readonly endsAt: number;
  /** The newest revision the client was told of (or knew when it connected). */
  sentRevision: number;
  /** The newest revision it has not been told of yet, while its socket is full. */
  pendingRevision: number;
  congested: boolean;
  /** Heartbeats missed in a row because the socket stayed full. */
  stalledBeats: number;
}

const refetch = (change: { revision: number; at: number }) =>
  `id: ${change.revision}\ndata: {"type":"refetchEvaluation","etag":"${change.revision}","lastModified":${Math.floor(change.at / 1000)}}\n\n`;

/** The last message built: a change fanned out to thousands of streams is encoded once, and the same bytes written to each. */
let lastMessage = { revision: -1, at: 0, bytes: Buffer.alloc(0) };
function messageFor(change: { revision: number; at: number }): Buffer {
  if (lastMessage.revision !== change.revision || lastMessage.at !== change.at) {
    lastMessage = { ...change, bytes: Buffer.from(refetch(change)) };
  }
  return lastMessage.bytes;
}

/**
 * The open OFREP event streams of this node (docs/product.md §9). Each gets a `refetchEvaluation`
 * message when its project changes; a slow client is never buffered for: while its socket is
 * full only the newest revision is remembered, and sent when it drains. Streams are grouped by
 * project and by key, so a change or a revocation is one listener call whatever the number of
 * streams, and a stream holds no closures or timers of its own (one heartbeat serves all).
 */
export class SseStreams {
  readonly #changes: ProjectChanges;
  readonly #clock: Clock;
  readonly #streams = new Map<Writable, OpenStream>();
  readonly #byProject: TopicGroups<OpenStream, ProjectChange>;
  readonly #byKey: TopicGroups<OpenStream, string>;
  readonly #heartbeat: NodeJS.Timeout;
  /** Listeners shared by every stream's connection (`this` is the connection). */
  readonly #onDrain: (this: Writable) => void;
  readonly #onClose: (this: Writable) => void;

  constructor(
    changes: ProjectChanges,
    revocations: KeyRevocations,
    clock: Clock = systemClock,
    heartbeatMs = HEARTBEAT_MS,
  ) {
    this.#changes = changes;
    this.#clock = clock;
    this.#byProject = new TopicGroups(
      (projectId, listener) => changes.subscribe(projectId, listener),
      (streams, change) => {
        for (const stream of streams) this.#changed(stream, change);
      },
    );
    this.#byKey = new TopicGroups(
      (keyId, listener) => revocations.subscribe(keyId, () => listener(keyId)),
      (streams) => {
        for (const stream of streams) this.#end(stream);
      },
    );
    const self = this;
    this.#onDrain = function (this: Writable) {
      const stream = self.#streams.get(this);
      if (stream !== undefined) self.#drained(stream);
    };
    this.#onClose = function (this: Writable) {
      const stream = self.#streams.get(this);
      if (stream !== undefined) self.#forget(stream);
    };
    this.#heartbeat = setInterval(() => this.#beat(), heartbeatMs);
    this.#heartbeat.unref();
  }

  get size(): number {
    return this.#streams.size;
  }

  /** Streams open for one API key. */
  openFor(keyId: string): number {
    return this.#byKey.count(keyId);
  }

  /**
   * Makes `sink` (a connection whose response headers are sent) the stream of `grant`.
   * `lastEventId` is the Last-Event-ID a reconnecting client sent: the revision it was last told of.
   */
  open(sink: Writable, grant: StreamGrant, lastEventId?: string): void {
    const current = this.#changes.revisionOf(grant.projectId) ?? 0;
    const known = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const stream: OpenStream = {
      sink,
      keyId: grant.keyId,
      projectId: grant.projectId,
      endsAt: grant.endsAt,
      sentRevision: current,
      pendingRevision: current,
      congested: false,
      stalledBeats: 0,
    };
    // `id` alone sets the client's Last-Event-ID without dispatching an event, so a reconnect says what it knew.
    sink.write(`retry: ${RETRY_MS}\nid: ${current}\n\n`);
    this.#streams.set(sink, stream);
    stream.projectId = this.#byProject.add(stream.projectId, stream);
    stream.keyId = this.#byKey.add(stream.keyId, stream);
    sink.on('drain', this.#onDrain);
    // `on`, not `once`: `once` wraps the listener in a closure per stream; #forget removes it.
    sink.on('close', this.#onClose);
    const lastChange = this.#changes.changedAt(grant.projectId) ?? 0;
    const missed = known === undefined ? this.#clock() - lastChange < RECENT_CHANGE_MS : known < current;
    if (missed && current > 0) this.#send(stream, { revision: current, at: lastChange || this.#clock() });
  }

  /** Ends every stream (shutdown) with a `retry` hint; clients reconnect to another node. */
  closeAll(): void {
    clearInterval(this.#heartbeat);
    for (const stream of [...this.#streams.values()]) {
      if (!stream.congested) stream.sink.write(RETRY_ON_SHUTDOWN);
      this.#end(stream);
    }
  }

  #changed(stream: OpenStream, change: ProjectChange): void {
    if (change.revision <= stream.sentRevision) return;
    if (stream.congested) {
      stream.pendingRevision = Math.max(stream.pendingRevision, change.revision);
      return;
    }
    this.#send(stream, change);
  }

  #drained(stream: OpenStream): void {
    stream.congested = false;
    stream.stalledBeats = 0;
    if (stream.pendingRevision > stream.sentRevision) {
      this.#send(stream, { revision: stream.pendingRevision, at: this.#clock() });
    }
  }

  #send(stream: OpenStream, change: { revision: number; at: number }): void {
    stream.sentRevision = change.revision;
    stream.pendingRevision = change.revision;
    if (!stream.sink.write(messageFor(change))) stream.congested = true;
  }

  /** Every 15 s: a comment to each stream, and the end of those whose token or key expired. */
  #beat(): void {
    const now = this.#clock() / 1000;
    for (const stream of this.#streams.values()) {
      if (stream.endsAt <= now) {
        this.#end(stream);
        continue;
      }
      if (stream.congested) {
        // A client that read nothing for two heartbeats is gone or stuck: free what it holds.
        if (++stream.stalledBeats >= 2) this.#end(stream);
        continue;
      }
      if (!stream.sink.write(HEARTBEAT)) stream.congested = true;
    }
  }

  #end(stream: OpenStream): void {
    this.#forget(stream);
    const sink = stream.sink;
    // A congested connection would never flush its last bytes: drop it at once. Otherwise the
    // connection closes once they are sent, whether or not the client closes its side.
    if (stream.congested) sink.destroy();
    else sink.end(() => sink.destroy());
  }

  #forget(stream: OpenStream): void {
    if (!this.#streams.delete(stream.sink)) return;
    stream.sink.off('drain', this.#onDrain);
    stream.sink.off('close', this.#onClose);
    this.#byProject.delete(stream.projectId, stream);
    this.#byKey.delete(stream.keyId, stream);
  }
}

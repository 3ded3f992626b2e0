import { EDGE_PROTOCOL, type EdgeProject } from '../services/serving/edge-upstream.ts';
import type { ChangeFeed, ChangeFeedListener } from '../storage/change-feed/change-feed.ts';
import type { StoredApiKey } from '../storage/store.ts';
import type { UpstreamMirror } from './upstream-mirror.ts';

export interface FollowerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** Upstream said no for good: the key is refused or it speaks another protocol. Retrying cannot help. */
export class UpstreamRefused extends Error {
  override name = 'UpstreamRefused';
}

export interface FollowerOptions {
  /** FLAGSTAFF_UPSTREAM_URL: a node or another edge. */
  readonly upstreamUrl: string;
  /** FLAGSTAFF_EDGE_KEY. */
  readonly edgeKey: string;
  readonly mirror: UpstreamMirror;
  readonly log: FollowerLog;
  /** After every message that changed the mirror (the cache is written from here). */
  readonly changed: () => void;
  /** Once per connection, when upstream's whole snapshot has arrived. */
  readonly ready?: () => void;
  /** A refusal that retrying cannot mend: the edge stops, naming the variable. */
  readonly refused: (error: UpstreamRefused) => void;
  /** No byte for this long (heartbeats included) and the stream is taken for dead; default 45 s. */
  readonly silenceMs?: number;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * Follows the upstream stream (decision 1981) into the mirror, reconnecting with backoff and
 * resuming from the revisions it holds (Last-Event-ID). As a change feed it tells the edge's
 * node sync what moved, so the edge's snapshots and keys follow as a node's follow its database.
 */
export class UpstreamFollower implements ChangeFeed {
  readonly #options: FollowerOptions;
  #listener: ChangeFeedListener | undefined;
  #controller: AbortController | undefined;
  #closed = false;
  #cursor: string | undefined;
  #connected = false;
  #running: Promise<void> | undefined;
  /** Ends the wait before the next attempt: `close` does not wait out a backoff. */
  #stopWaiting: (() => void) | undefined;

  constructor(options: FollowerOptions) {
    this.#options = options;
  }

  get upstream(): string {
    return this.#options.upstreamUrl;
  }

  /** Whether the stream is open now. */
  get connected(): boolean {
    return this.#connected;
  }

  /** Resumes from the revisions held (the cache's): upstream sends only what moved since. */
  resumeFrom(cursor: string): void {
    this.#cursor = cursor;
  }

  /** Starts following; the listener (node sync) may be attached later with `start`. */
  follow(): void {
    this.#running ??= this.#loop();
  }

  start(listener: ChangeFeedListener): void {
    this.#listener = listener;
    this.follow();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#controller?.abort();
    this.#stopWaiting?.();
    await this.#running;
  }

  async #loop(): Promise<void> {
    const { log } = this.#options;
    for (let attempt = 0; !this.#closed; ) {
      try {
        await this.#connect(() => {
          attempt = 0;
        });
        if (!this.#closed)
          log.warn({ upstream: this.#options.upstreamUrl }, 'upstream stream ended; reconnecting');
      } catch (error) {
        if (error instanceof UpstreamRefused) {
          this.#options.refused(error);
          return;
        }
        if (this.#closed) return;
        if (attempt === 0 || attempt % 20 === 0) {
          log.warn(
            { err: error, upstream: this.#options.upstreamUrl, attempt: attempt + 1 },
            this.#options.mirror.loaded
              ? 'upstream unreachable; serving the last snapshot and retrying'
              : 'upstream unreachable; retrying (listening once the first snapshot arrives)',
          );
        }
      }
      this.#connected = false;
      const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(attempt++, 10));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        timer.unref();
        this.#stopWaiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async #connect(opened: () => void): Promise<void> {
    const controller = new AbortController();
    this.#controller = controller;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.edgeKey}`,
      accept: 'text/event-stream',
    };
    if (this.#cursor !== undefined) headers['last-event-id'] = this.#cursor;
    const url = new URL('/v1/edge/stream', this.#options.upstreamUrl);
    const response = await fetch(url, { headers, signal: controller.signal });
    // A refusal's body is not read: let its connection go, or upstream waits on it when it stops.
    if (!response.ok) await response.body?.cancel();
    if (response.status === 401 || response.status === 403) {
      throw new UpstreamRefused(
        `FLAGSTAFF_EDGE_KEY was refused by ${this.#options.upstreamUrl} (${response.status}): it must be an edge key that is not revoked`,
      );
    }
    if (response.status === 404) {
      throw new UpstreamRefused(
        `FLAGSTAFF_UPSTREAM_URL ${this.#options.upstreamUrl} serves no edge stream (404): it must be a Flagstaff node or edge of this version`,
      );
    }
    if (!response.ok || response.body === null) throw new Error(`upstream answered ${response.status}`);
    const silenceMs = this.#options.silenceMs ?? 45_000;
    let watchdog = setTimeout(() => controller.abort(), silenceMs);
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => controller.abort(), silenceMs);
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          this.#handle(block, opened);
        }
      }
    } catch (error) {
      if (error instanceof UpstreamRefused) throw error;
      if (!this.#closed) throw error;
    } finally {
      clearTimeout(watchdog);
      this.#connected = false;
    }
  }

  #handle(block: string, opened: () => void): void {
    let event = 'message';
    let data = '';
    let id: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data += value;
      else if (field === 'id') id = value;
    }
    if (data === '') return;
    const payload = JSON.parse(data);
    const { mirror } = this.#options;
    switch (event) {
      case 'hello':
        if (payload.protocol !== EDGE_PROTOCOL) {
          throw new UpstreamRefused(
            `FLAGSTAFF_UPSTREAM_URL ${this.#options.upstreamUrl} speaks edge protocol ${payload.protocol}, this edge ${EDGE_PROTOCOL}: run the same Flagstaff version on both`,
          );
        }
        return;
      case 'project': {
        const project = payload as EdgeProject;
        mirror.put(project);
        this.#listener?.changed({
          kind: 'project',
          projectId: project.project.id,
          revision: project.revision,
        });
        break;
      }
      case 'removed':
        mirror.remove(payload.id);
        this.#listener?.changed({ kind: 'project', projectId: payload.id, revision: undefined });
        break;
      case 'keys':
        mirror.setKeys((payload as { keys: StoredApiKey[] }).keys);
        this.#listener?.changed({ kind: 'keys' });
        break;
      case 'ready':
        if (!this.#connected) {
          this.#connected = true;
          opened();
          this.#options.log.info({ upstream: this.#options.upstreamUrl }, 'following upstream');
          this.#options.ready?.();
        }
        break;
      default:
        return;
    }
    if (id !== undefined) this.#cursor = id;
    this.#options.changed();
  }
}

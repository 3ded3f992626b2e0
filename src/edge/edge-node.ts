import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { leasesAcrossWorkers } from '../access/worker-leases.ts';
import { ConfigError, type EdgeConfig } from '../config.ts';
import { ServerSecret } from '../domain/server-secret.ts';
import { buildApp } from '../http/build-app.ts';
import { loggerOptions } from '../http/logging.ts';
import { composeNode, type Node, perWorker, servedBy, syncSourcesOf } from '../main.ts';
import { startFlagdSyncServer } from '../openfeature/flagd-sync-server.ts';
import { releaseMemoryWhenIdle } from '../plane/idle-memory-release.ts';
import { cursorOf } from '../realtime/edge-streams.ts';
import { edgeStore } from './edge-store.ts';
import { ForwardingOutbox } from './forwarding-outbox.ts';
import { SnapshotCache } from './snapshot-cache.ts';
import { UpstreamFollower, type UpstreamRefused } from './upstream-follower.ts';
import { UpstreamMirror } from './upstream-mirror.ts';

/** How often counts and exposures gathered in memory are written to the outbox (as a node writes them to its database). */
const FLUSH_INTERVAL_MS = 10_000;
/** A burst of changes is written to the cache once. */
const CACHE_WRITE_DELAY_MS = 100;

export interface EdgeOptions {
  /** Tests pass their own: shorter flushes, a quicker dead-stream timeout, no log. */
  readonly flushIntervalMs?: number;
  readonly silenceMs?: number;
  readonly logger?: Parameters<typeof buildApp>[0]['logger'];
  /** Called when upstream refuses the edge for good after it started (its key revoked); default: exit 1. */
  readonly refused?: (error: UpstreamRefused) => void;
}

/** A running edge: its node, app and the parts that follow and forward. */
export interface Edge {
  readonly app: FastifyInstance;
  readonly node: Node;
  readonly mirror: UpstreamMirror;
  readonly follower: UpstreamFollower;
  readonly outbox: ForwardingOutbox;
  /** The origin it listens on. */
  readonly origin: string;
  /** The flagd gRPC sync port (FLAGSTAFF_FLAGD_SYNC_PORT), when it serves one. */
  readonly flagdSyncPort: number | undefined;
  close(): Promise<void>;
}

/** The cache directory must take files: checked before anything else, so the variable is named at once. */
async function writableCache(directory: string): Promise<void> {
  try {
    await mkdir(directory, { recursive: true });
    const probe = join(directory, `.probe-${process.pid}`);
    await writeFile(probe, '');
    await unlink(probe);
  } catch (error) {
    throw new ConfigError(
      `FLAGSTAFF_EDGE_CACHE ${directory} is not a writable directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/**
 * `flagstaff edge` (SPEC §14, decisions 1980-1984): a node composed over the mirror of its
 * upstream instead of a database, serving what applications call with the node's own routes,
 * services and plane. Starts from its cache when upstream is away; listens once it has a snapshot.
 */
export async function startEdge(config: EdgeConfig, options: EdgeOptions = {}): Promise<Edge> {
  if (config.releaseIdleMemory) releaseMemoryWhenIdle();
  await writableCache(config.edgeCache);
  const mirror = new UpstreamMirror();
  const cache = new SnapshotCache(config.edgeCache);
  const forwarding = await openOutbox(config);
  const { outbox } = forwarding;
  const node = composeEdgeNode(config, mirror, outbox);
  let follower: UpstreamFollower | undefined;
  const app = await buildApp({
    ...servedBy(node),
    logger: options.logger ?? loggerOptions(config.logLevel),
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    publicUrl: config.publicUrl,
    edge: {
      upstreamUrl: config.upstreamUrl,
      metrics: (registry) =>
        forwarding.countDropsIn(
          edgeMetrics(
            registry,
            () => follower?.connected ?? false,
            () => outbox.waiting,
          ),
        ),
    },
  });
  forwarding.logTo(app.log);

  await restoreFromCache(cache, mirror, app.log);
  const cacheWriter = new CacheWriter(cache, mirror, app.log);
  follower = await followUpstream(config, mirror, options, app.log, () => cacheWriter.saveSoon());
  // The node's own sync, with upstream's stream as its change feed (the mirror is its database).
  await node.plane.sync.start(follower, app.log);
  outbox.start();
  const flusher = periodicFlush(node, app.log, options.flushIntervalMs ?? FLUSH_INTERVAL_MS);

  const sync =
    config.flagdSyncPort === undefined
      ? undefined
      : await startFlagdSyncServer(syncSourcesOf(node), {
          port: config.flagdSyncPort,
          host: config.host,
          log: app.log,
        });

  const address = await app.listen({ port: config.port, host: config.host });
  const following = follower;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      flusher.stop();
      await sync?.close();
      // Requests in flight get a moment; then kept-alive connections (edges chained behind,
      // clients) are closed rather than waited for.
      const closed = app.close();
      const force = setTimeout(() => app.server.closeAllConnections(), 1_000);
      await closed;
      clearTimeout(force);
      await following.close();
      await node.plane.sync.close();
      await flusher.flush();
      await outbox.close();
      await cacheWriter.finish();
    })();
    return closing;
  };
  const origin = new URL(address).origin;
  return { app, node, mirror, follower, outbox, origin, flagdSyncPort: sync?.port, close };
}

/** The node an edge serves with: over the mirror and the outbox, with the node's own services. */
function composeEdgeNode(config: EdgeConfig, mirror: UpstreamMirror, outbox: ForwardingOutbox): Node {
  const leases = leasesAcrossWorkers(config.workers);
  return composeNode(edgeStore(mirror, outbox, config.upstreamUrl), {
    insights: config.insights,
    // Per edge, shared by its workers as on a node without Redis (FLAGSTAFF_RATE_LIMIT_*).
    admission: { rateLimits: perWorker(config, leases !== undefined), sharedLimits: leases },
    // The core's FLAGSTAFF_SECRET_KEY here too: flagd sync credentials made upstream then work on the edge.
    ...(config.secretKey === undefined ? {} : { serverSecret: ServerSecret.fromText(config.secretKey) }),
  });
}

/**
 * The forwarding outbox of this process (one per worker, FLAGSTAFF_WORKERS: two processes never
 * send the same file). Its log and drop counter exist only once the app does: until then drops
 * are kept and logs skipped.
 */
async function openOutbox(config: EdgeConfig) {
  let dropped: Counter | undefined;
  let droppedBefore = 0;
  let log: FastifyInstance['log'] | undefined;
  const outbox = new ForwardingOutbox({
    directory: join(
      config.edgeCache,
      config.workerIndex === undefined ? 'outbox' : `outbox-${config.workerIndex}`,
    ),
    maxBatches: config.edgeBufferBatches,
    send: (batch) => sendBatch(config, batch),
    log: { info: (d, m) => log?.info(d, m), warn: (d, m) => log?.warn(d, m) },
    dropped: (items) => {
      if (dropped === undefined) droppedBefore += items;
      else dropped.inc(items);
    },
  });
  await outbox.open();
  return {
    outbox,
    countDropsIn(counter: Counter): void {
      dropped = counter;
      counter.inc(droppedBefore);
    },
    logTo(logger: FastifyInstance['log']): void {
      log = logger;
    },
  };
}

/** Loads the cached snapshot into the mirror; a refused cache is one line naming the variable. */
async function restoreFromCache(
  cache: SnapshotCache,
  mirror: UpstreamMirror,
  log: FastifyInstance['log'],
): Promise<void> {
  const cached = await cache.read();
  if (cached.kind === 'loaded') {
    mirror.restore(cached.state);
    log.info(
      { savedAt: cached.savedAt, projects: cached.state.projects.length },
      'started from the cached snapshot',
    );
  } else if (cached.kind === 'refused') {
    log.error(
      { cache: cache.path },
      `FLAGSTAFF_EDGE_CACHE: the cached snapshot is refused (${cached.reason}); waiting for upstream`,
    );
  }
}

/** Writes the mirror to the cache shortly after it changed: a burst of changes is one write. */
class CacheWriter {
  readonly #cache: SnapshotCache;
  readonly #mirror: UpstreamMirror;
  readonly #log: FastifyInstance['log'];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(cache: SnapshotCache, mirror: UpstreamMirror, log: FastifyInstance['log']) {
    this.#cache = cache;
    this.#mirror = mirror;
    this.#log = log;
  }

  saveSoon(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#writing = this.#writing
        .then(() => this.#cache.save(this.#mirror.state()))
        .catch((error) => this.#log.warn({ err: error }, 'writing the snapshot cache failed'));
    }, CACHE_WRITE_DELAY_MS);
  }

  /** Writes what is pending now, and waits for the writes under way. */
  async finish(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      await this.#cache.save(this.#mirror.state());
    }
    await this.#writing;
  }
}

/**
 * Follows upstream, resuming from the cached revisions (only what moved since is sent again).
 * Resolves at once with a cached snapshot, else once the first arrives; a refusal before that
 * (a wrong key, no edge stream) rejects with a ConfigError naming the variable, one after it
 * stops the process (`options.refused`).
 */
async function followUpstream(
  config: EdgeConfig,
  mirror: UpstreamMirror,
  options: EdgeOptions,
  log: FastifyInstance['log'],
  changed: () => void,
): Promise<UpstreamFollower> {
  let started = false;
  let firstSnapshot: () => void = () => undefined;
  let refusedAtStart: (error: Error) => void = () => undefined;
  const snapshotReady = new Promise<void>((resolve, reject) => {
    firstSnapshot = resolve;
    refusedAtStart = reject;
  });
  const follower = new UpstreamFollower({
    upstreamUrl: config.upstreamUrl,
    edgeKey: config.edgeKey,
    mirror,
    log,
    silenceMs: options.silenceMs,
    changed,
    ready: () => firstSnapshot(),
    refused: (error) => {
      if (!started) refusedAtStart(new ConfigError(error.message));
      else {
        log.error(error.message);
        (options.refused ?? (() => process.exit(1)))(error);
      }
    },
  });
  if (mirror.loaded) follower.resumeFrom(cursorOf(mirror.revisions()));
  follower.follow();
  if (!mirror.loaded) await snapshotReady;
  started = true;
  return follower;
}

/** Counts and exposures gathered in memory go to the outbox every `intervalMs`, as a node writes them to its database. */
function periodicFlush(node: Node, log: FastifyInstance['log'], intervalMs: number) {
  const { services } = node;
  const flush = () =>
    Promise.all([
      services.insights
        .flush()
        .catch((error) => log.warn({ err: error }, 'buffering evaluation counts failed')),
      services.exposures.flush().catch((error) => log.warn({ err: error }, 'buffering exposures failed')),
    ]);
  const timer = setInterval(flush, intervalMs);
  timer.unref();
  return { flush, stop: () => clearInterval(timer) };
}

/** One forwarded batch, POSTed with the edge key; a 4xx is for good, anything else is retried. */
async function sendBatch(config: EdgeConfig, batch: unknown): Promise<'taken' | 'refused'> {
  const response = await fetch(`${config.upstreamUrl}/v1/edge/batches`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.edgeKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(batch),
    signal: AbortSignal.timeout(30_000),
  });
  await response.arrayBuffer();
  if (response.ok) return 'taken';
  if (response.status >= 400 && response.status < 500 && response.status !== 429) return 'refused';
  throw new Error(`upstream answered ${response.status}`);
}

/** The edge's own series on /metrics: what was dropped, what waits, whether upstream is followed. */
function edgeMetrics(registry: Registry, connected: () => boolean, waiting: () => number): Counter {
  new Gauge({
    name: 'flagstaff_edge_upstream_connected',
    help: '1 while the edge follows its upstream stream, 0 while it serves its last snapshot.',
    registers: [registry],
    collect() {
      this.set(connected() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'flagstaff_edge_forward_batches_waiting',
    help: 'Batches of events, exposures and counts on disk waiting for upstream.',
    registers: [registry],
    collect() {
      this.set(waiting());
    },
  });
  return new Counter({
    name: 'flagstaff_edge_forward_dropped_total',
    help: 'Events, exposures and evaluation counts dropped: past the buffer bound, or refused by upstream.',
    registers: [registry],
  });
}

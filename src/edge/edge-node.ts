import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ConfigError, type EdgeConfig } from '../config.ts';
import { ServerSecret } from '../domain/server-secret.ts';
import { buildApp } from '../http/build-app.ts';
import { loggerOptions } from '../http/logging.ts';
import { composeNode, type Node, perWorker, servedBy, syncSourcesOf } from '../main.ts';
import { startFlagdSyncServer } from '../openfeature/flagd-sync-server.ts';
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
  await writableCache(config.edgeCache);
  const mirror = new UpstreamMirror();
  const cache = new SnapshotCache(config.edgeCache);
  let dropped: Counter | undefined;
  let droppedBefore = 0;
  let log: FastifyInstance['log'] | undefined;
  const outbox = new ForwardingOutbox({
    // One outbox per worker (FLAGSTAFF_WORKERS): two processes never send the same file.
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
  const node = composeNode(edgeStore(mirror, outbox, config.upstreamUrl), {
    insights: config.insights,
    // Per edge process, as on a node without Redis (FLAGSTAFF_RATE_LIMIT_*).
    admission: { rateLimits: perWorker(config, false) },
    // The core's FLAGSTAFF_SECRET_KEY here too: flagd sync credentials made upstream then work on the edge.
    ...(config.secretKey === undefined ? {} : { serverSecret: ServerSecret.fromText(config.secretKey) }),
  });
  const app = await buildApp({
    ...servedBy(node),
    logger: options.logger ?? loggerOptions(config.logLevel),
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    publicUrl: config.publicUrl,
    edge: {
      upstreamUrl: config.upstreamUrl,
      metrics: (registry) => {
        dropped = edgeMetrics(
          registry,
          () => follower.connected,
          () => outbox.waiting,
        );
        dropped.inc(droppedBefore);
      },
    },
  });
  log = app.log;

  const cached = await cache.read();
  if (cached.kind === 'loaded') {
    mirror.restore(cached.state);
    app.log.info(
      { savedAt: cached.savedAt, projects: cached.state.projects.length },
      'started from the cached snapshot',
    );
  } else if (cached.kind === 'refused') {
    app.log.error(
      { cache: cache.path },
      `FLAGSTAFF_EDGE_CACHE: the cached snapshot is refused (${cached.reason}); waiting for upstream`,
    );
  }

  let cacheTimer: NodeJS.Timeout | undefined;
  let cacheWrite: Promise<void> = Promise.resolve();
  const saveSoon = () => {
    cacheTimer ??= setTimeout(() => {
      cacheTimer = undefined;
      cacheWrite = cacheWrite
        .then(() => cache.save(mirror.state()))
        .catch((error) => app.log.warn({ err: error }, 'writing the snapshot cache failed'));
    }, CACHE_WRITE_DELAY_MS);
  };

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
    log: app.log,
    silenceMs: options.silenceMs,
    changed: saveSoon,
    ready: () => firstSnapshot(),
    refused: (error) => {
      if (!started) refusedAtStart(new ConfigError(error.message));
      else {
        app.log.error(error.message);
        (options.refused ?? (() => process.exit(1)))(error);
      }
    },
  });
  // A restart resumes from the cached revisions: only what moved since is sent again.
  if (mirror.loaded) follower.resumeFrom(cursorOf(mirror.revisions()));
  follower.follow();
  if (!mirror.loaded) await snapshotReady;
  started = true;
  // The node's own sync, with upstream's stream as its change feed (the mirror is its database).
  await node.plane.sync.start(follower, app.log);
  outbox.start();

  const { services } = node;
  const flush = () =>
    Promise.all([
      services.insights
        .flush()
        .catch((error) => app.log.warn({ err: error }, 'buffering evaluation counts failed')),
      services.exposures.flush().catch((error) => app.log.warn({ err: error }, 'buffering exposures failed')),
    ]);
  const flushing = setInterval(flush, options.flushIntervalMs ?? FLUSH_INTERVAL_MS);
  flushing.unref();

  const sync =
    config.flagdSyncPort === undefined
      ? undefined
      : await startFlagdSyncServer(syncSourcesOf(node), {
          port: config.flagdSyncPort,
          host: config.host,
          log: app.log,
        });

  const address = await app.listen({ port: config.port, host: config.host });
  const origin = new URL(address).origin;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      clearInterval(flushing);
      await sync?.close();
      // Requests in flight get a moment; then kept-alive connections (edges chained behind,
      // clients) are closed rather than waited for.
      const closed = app.close();
      const force = setTimeout(() => app.server.closeAllConnections(), 1_000);
      await closed;
      clearTimeout(force);
      await follower.close();
      await node.plane.sync.close();
      await flush();
      await outbox.close();
      if (cacheTimer !== undefined) {
        clearTimeout(cacheTimer);
        await cache.save(mirror.state());
      }
      await cacheWrite;
    })();
    return closing;
  };
  return { app, node, mirror, follower, outbox, origin, close };
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

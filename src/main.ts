import { flushCompileCache } from 'node:module';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Admission } from './access/admission.ts';
import type { LegacySyncCredentials } from './access/api-key-authentication.ts';
import { type AdmissionOptions, createAdmission } from './access/create-admission.ts';
import { leasesAcrossWorkers } from './access/worker-leases.ts';
import { type Config, ConfigError, workerShare } from './config.ts';
import { type Clock, systemClock } from './domain/clock.ts';
import { combineRunningExperiments } from './domain/exposure.ts';
import type { ServerSecret } from './domain/server-secret.ts';
import { type AppOptions, buildApp } from './http/build-app.ts';
import { GracefulShutdown } from './http/graceful-shutdown.ts';
import { loggerOptions } from './http/logging.ts';
import { EvaluationCounts } from './observability/evaluation-counts.ts';
import type { SyncSources } from './openfeature/flagd-sync-server.ts';
import { releaseMemoryWhenIdle } from './plane/idle-memory-release.ts';
import { createPlane, type Plane } from './plane/plane.ts';
import { createRealtime, type Realtime } from './realtime/realtime.ts';
import { descriptorLimit, streamLimits } from './realtime/stream-limits.ts';
import { bootstrapAccounts } from './services/accounts/account-service.ts';
import { ChangeScheduler } from './services/governance/change-scheduler.ts';
import { AggregateFold } from './services/measurement/aggregate-fold.ts';
import { combineMeasuredComparisons } from './services/measurement/comparison-statistics.ts';
import { ExperimentComparisons } from './services/measurement/experiment-comparisons.ts';
import { bootstrap } from './services/projects/bootstrap.ts';
import { PrometheusClient } from './services/releases/prometheus-client.ts';
import { ReleaseComparisons } from './services/releases/release-comparisons.ts';
import { ReleaseGuards } from './services/releases/release-guards.ts';
import { RunningReleases } from './services/releases/running-releases.ts';
import { createServices, type ServiceOptions, type Services } from './services/services.ts';
import { openChangeFeed } from './storage/change-feed/open-change-feed.ts';
import { migrateToLatest, openDatabase, postgresPoolOf } from './storage/open-database.ts';
import { retryUntilReachable } from './storage/retry-until-reachable.ts';
import { type LoadedServerSecret, loadServerSecret } from './storage/server-key-file.ts';
import { createSqlStore } from './storage/sql/sql-store.ts';
import { withStartLock } from './storage/start-lock.ts';
import type { Store } from './storage/store.ts';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { sealPlainWebhookSecrets } from './webhooks/webhook-secret.ts';

/** How often the API keys' last use and the evaluation counts, kept in memory, are written to the database. */
const USAGE_FLUSH_INTERVAL_MS = 10_000;

export interface NodeOptions extends ServiceOptions {
  /** Read by everything that needs the time; tests pass a fake one. */
  readonly clock?: Clock;
  /** Rate limits and, with FLAGSTAFF_REDIS_URL, the leases that share them between nodes; a clock of its own for tests. */
  readonly admission?: AdmissionOptions;
}

/** One node's parts, each built once: the plane, admission, the use cases and the consumers of changes. */
export interface Node {
  readonly plane: Plane;
  readonly admission: Admission;
  readonly services: Services;
  readonly realtime: Realtime;
  /** The evaluations served by reason (/metrics). */
  readonly evaluationCounts: EvaluationCounts;
  /** Running release plans with metric guards, as exposures see them; the guard checker keeps it current. */
  readonly runningReleases: RunningReleases;
}

/** Composes a node over `store`: plane → admission → services → consumers (docs/architecture.md). */
export function composeNode(store: Store, options: NodeOptions = {}): Node {
  const clock = options.clock ?? systemClock;
  const plane = createPlane(store, clock);
  const admission = createAdmission(
    store,
    { keys: plane.keys, references: plane.snapshots },
    { clock, serverSecret: options.serverSecret, ...options.admission },
  );
  // Exposures are recorded under the running experiments' ids, and under `release:<plan id>` for
  // release plans with metric guards.
  const experiments = options.experiments ?? plane.runningExperiments;
  const runningReleases = new RunningReleases();
  const services = createServices(
    store,
    { ...plane, authentication: admission.keys },
    { ...options, clock, experiments: combineRunningExperiments(experiments, runningReleases) },
  );
  // Exposures too: single evaluations of a flag under a running experiment (SPEC §13).
  services.evaluation.observe(services.exposures.counter);
  // The /metrics tally and insights count every evaluation served, as its observers (docs/decisions/1772).
  const evaluationCounts = new EvaluationCounts();
  services.evaluation.observe(evaluationCounts);
  if (services.insights.counter !== null) services.evaluation.observe(services.insights.counter);
  const realtime = createRealtime({
    changes: plane.snapshots,
    revocations: plane.revocations,
    admission,
    clock,
    serverSecret: services.serverSecret,
    edgeUpstream: services.edgeUpstream,
  });
  return { plane, admission, services, realtime, evaluationCounts, runningReleases };
}

/** What `buildApp` serves of a node. */
export function servedBy(
  node: Node,
): Pick<AppOptions, 'services' | 'admission' | 'realtime' | 'changes' | 'evaluationCounts'> {
  return {
    services: node.services,
    admission: node.admission,
    realtime: node.realtime,
    changes: node.plane.snapshots,
    evaluationCounts: node.evaluationCounts,
  };
}

/** What flagd's gRPC sync server reads of a node. */
export function syncSourcesOf(node: Node): SyncSources {
  return { ...node, changes: node.plane.snapshots, revocations: node.plane.revocations };
}

/** Wiring only: config → store → plane → services → consumers → app.listen. Resolves once the server listens. */
export async function serve(config: Config): Promise<FastifyInstance> {
  if ((config.adminEmail === undefined) !== (config.adminPassword === undefined)) {
    throw new ConfigError('FLAGSTAFF_ADMIN_EMAIL and FLAGSTAFF_ADMIN_PASSWORD must be set together');
  }
  // Before the start's burst of reading and compiling, whose freed pages are what it gives back.
  if (config.releaseIdleMemory) releaseMemoryWhenIdle();
  // Node keeps each loaded module's compile cache in malloc'd memory until it is flushed: freed
  // now, before the start's reading and compiling, the holes are reused by it instead of staying
  // between what it allocates (malloc's main arena 4–5 MB smaller at 10,000 flags, decision 2097).
  flushCompileCache();
  // Outside the database, so that a backup holds nothing that derives or signs (decision 1880).
  const key = await loadServerSecret(config.secretKey, config.databaseUrl);
  const serverSecret = key.secret;
  // Opening connects lazily: the app exists (and logs) before the database answers.
  const { db } = openDatabase(config.databaseUrl);
  const store = createSqlStore(db);
  const logger = loggerOptions(config.logLevel);
  const { app, node } = await buildNodeApp(store, config, logger, serverSecret);
  const services = node.services;
  reportServerKey(app.log, key, config.legacySyncCredentialsUntil);
  postgresPoolOf(db)?.on('error', (error) => app.log.warn({ err: error }, 'database connection lost'));
  // A node started while the database is down waits for it, retrying with backoff (docs/product.md §8).
  // Under a lock: nodes starting together migrate once and create one first project (decision 1732).
  const { first, accounts } = await retryUntilReachable(app.log, () =>
    withStartLock(db, async () => {
      const migrations = await migrateToLatest(db);
      if (migrations.length > 0) app.log.info({ migrations }, 'database schema migrated');
      const sealed = await sealPlainWebhookSecrets(store.webhooks, services.serverSecret);
      if (sealed > 0) app.log.info({ webhooks: sealed }, 'webhook secrets sealed with the server key');
      const first = await bootstrap(store, config.adminKey);
      const accounts = await bootstrapAccounts(store, {
        email: config.adminEmail,
        password: config.adminPassword,
      });
      const ended = await services.sessions.endPasswordSessionsWhenOff();
      if (ended > 0) app.log.info({ sessions: ended }, 'password sign-in is off: password sessions ended');
      return { first, accounts };
    }),
  );
  if (first.generatedSecret !== undefined) showFirstKey(first.generatedSecret, config);
  // Every project and key in memory, then the change feed (decisions 0201, 0204, 0205); the
  // environments no request asked for are compiled once the node listens (decision 2050).
  node.plane.snapshots.holdBackgroundCompile();
  await node.plane.sync.start(openChangeFeed(db), app.log);
  await node.plane.runningExperiments.refresh();
  startBackgroundWork(app, store, node, config);
  handleSignals(app, node.services, config.shutdownGraceMs);
  await startFlagdSync(app, node, config);
  const origin = await listen(app, config);
  // What Node compiled to start (bin/flagstaff.js enables its compile cache) is on disk now, not
  // only when the process exits, which a killed one never does (decision 2081).
  flushCompileCache();
  void node.plane.snapshots.compileInBackground();
  showStarted(origin, accounts);
  return app;
}

/**
 * The node and its app: Redis (for shared budgets) and the stream limits are made here, so
 * `buildApp` builds nothing of its own.
 */
async function buildNodeApp(
  store: Store,
  config: Config,
  logger: AppOptions['logger'],
  serverSecret: ServerSecret,
): Promise<{ app: FastifyInstance; node: Node }> {
  // Redis reports its coming and going through the app's logger, made after it: hand it on late.
  let log: FastifyInstance['log'] | undefined;
  // Between nodes through Redis, else between this node's workers through their primary.
  const sharedLimits =
    config.redisUrl === undefined
      ? leasesAcrossWorkers(config.workers)
      : // Loaded only when named: a node without Redis does not carry its client (issue 40).
        new (await import('./access/redis-leases.ts')).RedisLeases(config.redisUrl, {
          info: (details, message) => log?.info(details, message),
          warn: (details, message) => log?.warn(details, message),
        });
  const node = composeNode(store, {
    insights: config.insights,
    webhooksAllowPrivate: config.webhooksAllowPrivate,
    publicUrl: config.publicUrl,
    sso: config.oidc,
    passwordSignIn: config.passwordSignIn,
    eventRetentionDays: config.eventRetentionDays,
    prometheus: config.prometheusUrl === undefined ? undefined : new PrometheusClient(config.prometheusUrl),
    serverSecret,
    admission: {
      rateLimits: perWorker(config, sharedLimits !== undefined),
      sharedLimits,
      legacySyncCredentials: legacySyncCredentials(config.legacySyncCredentialsUntil, () => log),
    },
  });
  const streams = streamLimits(
    { perNode: config.streamsPerNode, perKey: config.streamsPerKey },
    descriptorLimit(),
  );
  const app = await buildApp({
    ...servedBy(node),
    streamLimits: streams,
    logger,
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    telemetry:
      config.otlpEndpoint === undefined
        ? undefined
        : { endpoint: config.otlpEndpoint, serviceName: config.otelServiceName },
    publicUrl: config.publicUrl,
  });
  log = app.log;
  if (sharedLimits !== undefined) app.addHook('onClose', () => sharedLimits.close());
  if (streams.lowered) {
    app.log.warn(
      { streamsPerNode: streams.perNode },
      'FLAGSTAFF_STREAMS_PER_NODE lowered to stay under the open-file limit (raise ulimit -n to hold more)',
    );
  }
  return { app, node };
}

/** FLAGSTAFF_RATE_LIMIT_*, whole when the budgets are shared (Redis, or the workers' primary: decision 1988), else each worker's share (decision 1986). */
export function perWorker(config: Config, shared: boolean): { evaluation: number; management: number } {
  const share = (limit: number) => (shared ? limit : workerShare(limit, config.workers));
  return { evaluation: share(config.rateLimitEvaluation), management: share(config.rateLimitManagement) };
}

/** The one time a secret is shown: on first start, to the operator, never through the logger. */
function showFirstKey(secret: string, config: Config): void {
  // Before listening, so that a start that fails (a port in use) has shown it all the same.
  process.stdout.write(
    `\nFlagstaff created the project "default" and an organisation-wide admin key.\n` +
      `It is shown this once; store it now:\n\n    ${secret}\n\n` +
      `Try it:  curl -H "Authorization: Bearer ${secret}" http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/v1/projects/default/flags\n\n`,
  );
}

/** The scheduler, the usage flush and the webhook dispatcher, stopped when the app closes. */
function startBackgroundWork(app: FastifyInstance, store: Store, node: Node, config: Config): void {
  const { services } = node;
  // After migrations: the first pass applies changes that fell due while no node ran.
  const scheduler = new ChangeScheduler(store, services.scheduledChanges, {
    log: app.log,
    clock: services.clock,
  });
  scheduler.start();
  node.plane.runningExperiments.start((error) =>
    app.log.warn({ err: error }, 'reading running experiments failed'),
  );
  // Per-unit aggregates of measured comparisons, folded on every node, written by one (decision 1941).
  const measured = combineMeasuredComparisons(
    new ExperimentComparisons(store, services.clock),
    new ReleaseComparisons(store),
  );
  const fold = new AggregateFold(store, measured, {
    clock: services.clock,
  });
  fold.start((error) => app.log.warn({ err: error }, 'folding events into experiment aggregates failed'));
  // Every node reads release guards; a look is recorded against the plan's version, so once.
  const guards = new ReleaseGuards(store, services.releases, {
    clock: services.clock,
    prometheus: services.prometheus,
    statistics: services.comparisonStatistics,
    running: node.runningReleases,
    log: app.log,
  });
  guards.start();
  const flushUsage = () =>
    Promise.all([
      services.apiKeys
        .flushUsage()
        .catch((error) => app.log.warn({ err: error }, 'recording API key use failed')),
      services.insights
        .flush()
        .catch((error) => app.log.warn({ err: error }, 'recording evaluation counts failed')),
      services.exposures.flush().then(
        ({ dropped }) => {
          if (dropped > 0) app.log.warn({ dropped }, 'exposures dropped: more units than a flush holds');
        },
        (error) => app.log.warn({ err: error }, 'recording exposures failed'),
      ),
      // Hourly inside: the coming days' event partitions, and retention.
      services.events
        .maintain()
        .catch((error) => app.log.warn({ err: error }, 'event partitions or retention failed')),
    ]);
  const usage = setInterval(flushUsage, USAGE_FLUSH_INTERVAL_MS);
  usage.unref();
  app.addHook('onClose', async () => {
    clearInterval(usage);
    node.plane.runningExperiments.stop();
    await fold.stop();
    await scheduler.stop();
    await guards.stop();
    await node.plane.sync.close();
    await flushUsage();
    await store.close();
  });
  // Every node delivers webhooks; database leases keep two from sending the same attempt.
  const dispatcher = new WebhookDispatcher(store.webhooks, {
    log: app.log,
    allowPrivate: config.webhooksAllowPrivate,
    serverSecret: services.serverSecret,
    dashboard: config.publicUrl,
  });
  dispatcher.start();
  app.addHook('preClose', () => dispatcher.stop());
}

/** SIGINT and SIGTERM drain the node, then close it; a close that hangs still ends the process. */
function handleSignals(app: FastifyInstance, services: Services, graceMs: number): void {
  const shutdown = new GracefulShutdown(app, graceMs);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info(`${signal}: draining, then shutting down`);
      services.health.startDraining();
      shutdown.begin();
      // Should a close hook hang, the process still ends: a supervisor waits only so long.
      setTimeout(() => {
        app.log.error('shutdown did not finish in time; exiting');
        process.exit(1);
      }, graceMs + 10_000).unref();
      void app.close().then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

/** flagd's gRPC sync, when FLAGSTAFF_FLAGD_SYNC_PORT is set: admitted like every other way in. */
async function startFlagdSync(app: FastifyInstance, node: Node, config: Config): Promise<void> {
  if (config.flagdSyncPort === undefined) return;
  // gRPC and its proto loader are loaded only when the port is set (issue 40: memory of an idle node).
  const { startFlagdSyncServer } = await import('./openfeature/flagd-sync-server.ts');
  const sync = await startFlagdSyncServer(syncSourcesOf(node), {
    port: config.flagdSyncPort,
    host: config.host,
    log: app.log,
  });
  app.addHook('preClose', () => sync.close());
}

/** Where to go next: the dashboard's first-admin link or admin, and the addresses. */
function showStarted(
  origin: string,
  accounts: { readonly setupToken?: string | undefined; readonly createdAdmin?: string | undefined },
): void {
  if (accounts.setupToken !== undefined) {
    // Printed once, like the admin key: the link creates the first dashboard admin.
    process.stdout.write(
      `\nOpen this link once to create the first dashboard admin (valid 7 days):\n\n    ${origin}/setup#${accounts.setupToken}\n\n`,
    );
  } else if (accounts.createdAdmin !== undefined) {
    process.stdout.write(
      `Created the dashboard admin ${accounts.createdAdmin} from FLAGSTAFF_ADMIN_EMAIL; sign in at ${origin}/\n`,
    );
  }
  process.stdout.write(
    `Flagstaff is listening: API ${origin}/v1 · dashboard ${origin}/ · docs ${origin}/docs\n`,
  );
}

/** FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL as admission takes it, each use logged (decision 1880). */
function legacySyncCredentials(
  until: number | undefined,
  log: () => FastifyBaseLogger | undefined,
): LegacySyncCredentials | undefined {
  if (until === undefined) return undefined;
  // A provider still on its old selector: the operator swaps it for the one the dashboard shows.
  const used = (keyId: string) =>
    log()?.warn({ keyId }, 'a flagd provider synced with a sync credential of the old derivation');
  return { until, used };
}

/** What a start says about the server key (never the key): where it is, and what to fix. */
function reportServerKey(log: FastifyBaseLogger, key: LoadedServerSecret, legacyUntil: number | undefined) {
  if (key.warning !== undefined) log.warn({ keyFile: key.file }, key.warning);
  if (key.created) {
    log.info({ keyFile: key.file }, 'created the server key file: keep it with the data, apart from backups');
  }
  if (legacyUntil !== undefined && legacyUntil > Date.now()) {
    log.warn(
      { until: new Date(legacyUntil).toISOString() },
      'flagd sync credentials of the old derivation are accepted until FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL: move providers to the selectors the dashboard shows',
    );
  }
}

/**
 * Listens, and answers with the origin people can open (`0.0.0.0` shown as `localhost`).
 * Fastify's own JSON "Server listening" line is held back: the caller prints one line for
 * people instead. A port in use is the operator's to fix: one line naming it and the variable.
 */
async function listen(app: FastifyInstance, config: Config): Promise<string> {
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    const address = await app.listen({ port: config.port, host: config.host });
    const url = new URL(address);
    if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = 'localhost';
    return url.origin;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    await app.close();
    throw new ConfigError(
      `port ${config.port} on ${config.host} is already in use by another process: stop it, or set FLAGSTAFF_PORT to a free port`,
    );
  } finally {
    app.log.level = level;
  }
}

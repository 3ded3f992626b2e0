import type { FastifyInstance } from 'fastify';
import { type Config, ConfigError } from './config.ts';
import { buildApp } from './http/build-app.ts';
import { GracefulShutdown } from './http/graceful-shutdown.ts';
import { loggerOptions } from './http/logging.ts';
import { startFlagdSyncServer } from './openfeature/flagd-sync-server.ts';
import { SnapshotRegistry } from './plane/snapshots.ts';
import { createRealtime } from './realtime/realtime.ts';
import { descriptorLimit, streamLimits } from './realtime/stream-limits.ts';
import { bootstrapAccounts } from './services/accounts/account-service.ts';
import { ChangeScheduler } from './services/governance/change-scheduler.ts';
import { bootstrap } from './services/projects/bootstrap.ts';
import { createServices } from './services/services.ts';
import { openChangeFeed } from './storage/change-feed/open-change-feed.ts';
import { migrateToLatest, openDatabase, postgresPoolOf } from './storage/open-database.ts';
import { retryUntilReachable } from './storage/retry-until-reachable.ts';
import { createSqlStore } from './storage/sql/sql-store.ts';
import { withStartLock } from './storage/start-lock.ts';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.ts';

/** How often the API keys' last use and the evaluation counts, kept in memory, are written to the database. */
const USAGE_FLUSH_INTERVAL_MS = 10_000;

/** Wiring only: config → store → services → app.listen. Resolves once the server listens. */
export async function serve(config: Config): Promise<FastifyInstance> {
  if ((config.adminEmail === undefined) !== (config.adminPassword === undefined)) {
    throw new ConfigError('FLAGSTAFF_ADMIN_EMAIL and FLAGSTAFF_ADMIN_PASSWORD must be set together');
  }
  // Opening connects lazily: the app exists (and logs) before the database answers.
  const { db } = openDatabase(config.databaseUrl);
  const store = createSqlStore(db);
  const snapshots = new SnapshotRegistry(store);
  const services = createServices(store, {
    snapshots,
    insights: config.insights,
    webhooksAllowPrivate: config.webhooksAllowPrivate,
    sso: config.oidc,
    passwordSignIn: config.passwordSignIn,
    eventRetentionDays: config.eventRetentionDays,
  });
  // Consumers of the plane and of evaluations are wired here, not by the services (docs/decisions/1772).
  const realtime = createRealtime(services);
  const streams = streamLimits(
    { perNode: config.streamsPerNode, perKey: config.streamsPerKey },
    descriptorLimit(),
  );
  const app = await buildApp({
    services,
    realtime,
    streamLimits: streams,
    logger: loggerOptions(config.logLevel),
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    telemetry:
      config.otlpEndpoint === undefined
        ? undefined
        : { endpoint: config.otlpEndpoint, serviceName: config.otelServiceName },
    redisUrl: config.redisUrl,
    publicUrl: config.publicUrl,
    accessControl: {
      rateLimits: { evaluation: config.rateLimitEvaluation, management: config.rateLimitManagement },
    },
  });
  if (streams.lowered) {
    app.log.warn(
      { streamsPerNode: streams.perNode },
      'FLAGSTAFF_STREAMS_PER_NODE lowered to stay under the open-file limit (raise ulimit -n to hold more)',
    );
  }
  postgresPoolOf(db)?.on('error', (error) => app.log.warn({ err: error }, 'database connection lost'));
  // A node started while the database is down waits for it, retrying with backoff (docs/product.md §8).
  // Under a lock: nodes starting together migrate once and create one first project (decision 1732).
  const { first, accounts } = await retryUntilReachable(app.log, () =>
    withStartLock(db, async () => {
      const migrations = await migrateToLatest(db);
      if (migrations.length > 0) app.log.info({ migrations }, 'database schema migrated');
      const first = await bootstrap(store, config.adminKey);
      const accounts = await bootstrapAccounts(store, {
        email: config.adminEmail,
        password: config.adminPassword,
      });
      return { first, accounts };
    }),
  );
  if (first.generatedSecret !== undefined) {
    // The one time a secret is shown: on first start, to the operator, never through the logger.
    // Before listening, so that a start that fails (a port in use) has shown it all the same.
    process.stdout.write(
      `\nFlagstaff created the project "default" and an organisation-wide admin key.\n` +
        `It is shown this once; store it now:\n\n    ${first.generatedSecret}\n\n` +
        `Try it:  curl -H "Authorization: Bearer ${first.generatedSecret}" http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/v1/projects/default/flags\n\n`,
    );
  }
  // Every project and key in memory, then the change feed (decisions 0201, 0204, 0205).
  await services.sync.start(openChangeFeed(db), app.log);
  // After migrations: the first pass applies changes that fell due while no node ran.
  const scheduler = new ChangeScheduler(store, services.flags, { log: app.log, clock: services.clock });
  scheduler.start();
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
    await scheduler.stop();
    await services.sync.close();
    await flushUsage();
    await store.close();
  });
  const shutdown = new GracefulShutdown(app, config.shutdownGraceMs);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info(`${signal}: draining, then shutting down`);
      services.health.startDraining();
      shutdown.begin();
      // Should a close hook hang, the process still ends: a supervisor waits only so long.
      setTimeout(() => {
        app.log.error('shutdown did not finish in time; exiting');
        process.exit(1);
      }, config.shutdownGraceMs + 10_000).unref();
      void app.close().then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  // Every node delivers webhooks; database leases keep two from sending the same attempt.
  const dispatcher = new WebhookDispatcher(store.webhooks, {
    log: app.log,
    allowPrivate: config.webhooksAllowPrivate,
  });
  dispatcher.start();
  app.addHook('preClose', () => dispatcher.stop());
  if (config.flagdSyncPort !== undefined) {
    const sync = await startFlagdSyncServer(services, {
      port: config.flagdSyncPort,
      host: config.host,
      log: app.log,
      failedAuthentications: app.accessControl.failedAuthentications,
    });
    app.addHook('preClose', () => sync.close());
  }
  const origin = await listen(app, config);
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
  return app;
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

import type { FastifyInstance } from 'fastify';
import { type Config, ConfigError } from './config.ts';
import { buildApp } from './http/build-app.ts';
import { bootstrapAccounts } from './services/account-service.ts';
import { bootstrap } from './services/bootstrap.ts';
import { ChangeScheduler } from './services/change-scheduler.ts';
import { createServices } from './services/services.ts';
import { openStore } from './storage/open-store.ts';

/** How often a node looks for writes made by other nodes (PostgreSQL deployments). */
const POLL_INTERVAL_MS = 1000;
/** How often the API keys' last use, kept in memory, is written to the database. */
const USAGE_FLUSH_INTERVAL_MS = 10_000;

/** Wiring only: config → store → services → app.listen. Resolves once the server listens. */
export async function serve(config: Config): Promise<FastifyInstance> {
  if ((config.adminEmail === undefined) !== (config.adminPassword === undefined)) {
    throw new ConfigError('FLAGSTAFF_ADMIN_EMAIL and FLAGSTAFF_ADMIN_PASSWORD must be set together');
  }
  const store = await openStore(config.databaseUrl);
  const first = await bootstrap(store, config.adminKey);
  if (first.generatedSecret !== undefined) {
    // The one time a secret is shown: on first start, to the operator, never through the logger.
    process.stdout.write(
      `\nFlagstaff created the project "default" and an organisation-wide admin key.\n` +
        `It is shown this once; store it now:\n\n    ${first.generatedSecret}\n\n` +
        `Try it:  curl -H "Authorization: Bearer ${first.generatedSecret}" http://${config.host}:${config.port}/v1/projects/default/flags\n\n`,
    );
  }
  const accounts = await bootstrapAccounts(store, {
    email: config.adminEmail,
    password: config.adminPassword,
  });
  const services = createServices(store);
  const app = await buildApp({
    services,
    logger: { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    corsOrigins: config.corsOrigins,
    accessControl: {
      rateLimits: { evaluation: config.rateLimitEvaluation, management: config.rateLimitManagement },
    },
  });
  const scheduler = new ChangeScheduler(store, services.flags, { log: app.log });
  scheduler.start();
  const poller = setInterval(() => {
    services.snapshots.poll().catch((error) => app.log.warn({ err: error }, 'snapshot poll failed'));
  }, POLL_INTERVAL_MS);
  poller.unref();
  const flushUsage = () =>
    services.apiKeys
      .flushUsage()
      .catch((error) => app.log.warn({ err: error }, 'recording API key use failed'));
  const usage = setInterval(flushUsage, USAGE_FLUSH_INTERVAL_MS);
  usage.unref();
  app.addHook('onClose', async () => {
    clearInterval(poller);
    clearInterval(usage);
    await scheduler.stop();
    await flushUsage();
    await store.close();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info(`${signal}: shutting down`);
      void app.close().then(() => process.exit(0));
    });
  }
  const address = await app.listen({ port: config.port, host: config.host });
  if (accounts.setupToken !== undefined) {
    // Printed once, like the admin key: the link creates the first dashboard admin.
    const url = new URL(address);
    if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = 'localhost';
    process.stdout.write(
      `\nOpen this link once to create the first dashboard admin (valid 7 days):\n\n    ${url.origin}/setup#${accounts.setupToken}\n\n`,
    );
  }
  return app;
}

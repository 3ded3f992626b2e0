import type { Services } from '../../services/services.ts';
import { problem, sendProblem } from '../problem.ts';
import type { RoutesPlugin } from '../type-provider.ts';

export const healthRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  // Ready while the node can evaluate: once its snapshots and keys are loaded, even with the
  // database down (SPEC §8); the body says whether the database answers.
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const { sync } = services;
    if (sync.started) {
      if (sync.loaded) return { status: 'ready', database: sync.database };
      return sendProblem(reply, notReady('The node is still loading from the database.', sync.database));
    }
    // A node that loads lazily (tests, embedded use) can evaluate only while the database answers.
    try {
      await services.health.databaseReady();
      return { status: 'ready', database: 'up' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not ready');
      return sendProblem(reply, notReady('The database does not answer.', 'down'));
    }
  });
};

const notReady = (detail: string, database: 'up' | 'down') => ({
  ...problem('database_unavailable', detail),
  title: 'Not ready',
  database,
});

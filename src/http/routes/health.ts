import type { Services } from '../../services/services.ts';
import { problem, sendProblem } from '../problem.ts';
import type { RoutesPlugin } from '../type-provider.ts';

export const healthRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await services.health.databaseReady();
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not ready');
      return sendProblem(reply, {
        ...problem('internal_error', 'The database does not answer.'),
        status: 503,
        title: 'Not ready',
      });
    }
  });
};

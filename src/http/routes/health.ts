import type { Services } from '../../services/services.ts';
import { problem, sendProblem } from '../problem.ts';
import type { RoutesPlugin } from '../type-provider.ts';

export const healthRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  // Ready while the node can evaluate: once its snapshots and keys are loaded, even with the
  // database down (docs/product.md §8); the body says whether the database answers.
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const { ready, draining, database } = await services.health.readiness();
    if (ready) return { status: 'ready', database };
    // Shutting down is not an error to report, only a reason to send traffic elsewhere.
    if (draining) return reply.code(503).send({ status: 'draining', database });
    // RFC 9457 allows extension members: the database's state, as in the 200 body.
    const notReady = {
      ...problem('database_unavailable', 'The node cannot evaluate yet: its snapshots are not loaded.'),
      title: 'Not ready',
      database,
    };
    return sendProblem(reply, notReady);
  });
};

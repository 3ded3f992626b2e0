import { MAX_FLAGS_PER_BATCH, MAX_WRITES_PER_FLAG } from '../../domain/schemas/flag-batch.ts';
import type { FlagBatchResult } from '../../services/flags/flag-batch.ts';
import type { Services } from '../../services/services.ts';
import { problem } from '../problem.ts';
import { actorOf } from '../request-helpers.ts';
import { access, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { ProjectParams } from '../schemas/common.ts';
import { FlagBatchResultSchema, FlagBatchSchema } from '../schemas/flags.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Flags']);

type FlagBatchUseCases = Pick<Services, 'flags'>;

/** The answer: each flag as the single routes would have answered it, and how many of each. */
function answerOf({ flags }: FlagBatchResult) {
  const count = (outcome: string) => flags.filter((f) => f.outcome === outcome).length;
  return {
    written: count('written'),
    requested: count('requested'),
    refused: count('refused'),
    flags: flags.map((f) => ({
      index: f.index,
      flag: f.key,
      outcome: f.outcome,
      ...(f.outcome === 'refused'
        ? {
            changeRequests: [],
            problem: problem(f.error.code, f.error.message, f.error.errors),
            write: f.write,
          }
        : {
            ...(f.flag === undefined ? {} : { id: f.flag.id, version: f.flag.version }),
            changeRequests: f.changeRequests.map((r) => ({
              id: r.id,
              environment: r.environment,
              requiredApprovals: r.requiredApprovals,
            })),
          }),
    })),
  };
}

/** POST /v1/projects/{p}/flag-batches: many flags' writes in one request (docs/decisions/1960-flag-batches.md). */
export const flagBatchRoutes: RoutesPlugin<{ services: FlagBatchUseCases }> = async (app, { services }) => {
  app.post(
    '/projects/:projectId/flag-batches',
    describe('Create, change and delete many flags in one request', {
      description: `Each item names a flag by key and lists its writes in order, each as its single route takes it: \`create\` (POST /v1/projects/{p}/flags, first write only), \`patch\` with \`environment\` (PATCH /v1/flags/{id}?environment=), \`delete\`. Every write passes the same checks and the same gate: a non-admin's write reaching an environment that requires approvals becomes a change request, listed under its flag. One transaction; each flag's writes are made all or none: a flag refused (stale \`ifMatch\`, unknown, invalid, outside the key's environments) is answered with the problem its single route would give, and the others are written. At most ${MAX_FLAGS_PER_BATCH} flags and 1 MiB a batch (else 413), ${MAX_WRITES_PER_FLAG} writes a flag; a batch that names a flag twice, or a write that is not exactly one of create, patch, delete, is refused whole (400).`,
      params: ProjectParams,
      body: FlagBatchSchema,
      200: FlagBatchResultSchema,
      config: access('editor', PROJECT),
    }),
    async (request) =>
      answerOf(await services.flags.batch(actorOf(request), request.params.projectId, request.body.flags)),
  );
};

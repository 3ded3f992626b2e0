import { Type } from 'typebox';
import { ChangeRequestSchema } from '../../domain/schemas/pending-change-schemas.ts';
import type { FlagdExportWarning } from '../../flagd/export-flagd.ts';
import type { Services } from '../../services/services.ts';
import { compressBulkAnswer, sendWithEtag } from '../compressed-answers.ts';
import { actorOf, sendGated } from '../request-helpers.ts';
import { access, PATH_ENVIRONMENT, PATH_SYNC_SCOPE, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, EnvironmentParams } from '../schemas/common.ts';
import type { RoutesApp, RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['flagd']);

/** At most this many warnings travel in the header; the rest are counted. */
const WARNINGS_IN_HEADER = 20;

/** The export's warnings as header text: JSON, ASCII only (keys and messages are), bounded in size. */
export function warningsHeader(warnings: readonly FlagdExportWarning[]): string {
  const shown: unknown[] = warnings.slice(0, WARNINGS_IN_HEADER);
  if (warnings.length > WARNINGS_IN_HEADER) {
    shown.push({ message: `and ${warnings.length - WARNINGS_IN_HEADER} more` });
  }
  return JSON.stringify(shown).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export const EXPORT_WARNINGS_HEADER = 'flagstaff-export-warnings';

/** flagd flag definitions in and out of one environment (docs/product.md §6). */
export const flagdRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  importRoute(app, services);
  exportRoute(app, services);
};

function importRoute(app: RoutesApp, services: Services): void {
  app.post(
    '/projects/:projectId/environments/:envKey/flagd',
    describe('Import a flagd flags document into an environment', {
      description:
        'Creates or updates every flag of the document in this environment, in one transaction with an audit event per flag. Variants and metadata are the flag’s own, so they change in every environment; flags the document does not name are left alone. A flag whose targeting cannot work is imported as written and listed in `warnings` (it evaluates with PARSE_ERROR); `?strict=true` refuses the document instead.',
      params: EnvironmentParams,
      querystring: Closed({
        strict: Type.Optional(
          Type.Boolean({
            description:
              'Refuse the document (400, naming each flag) when a flag’s targeting cannot work, instead of importing it with a warning.',
          }),
        ),
      }),
      body: Type.Unknown({ description: 'A flagd document (flags.json or flagd.json schema).' }),
      200: Type.Object({
        environment: Type.String(),
        created: Type.Array(Type.String()),
        updated: Type.Array(Type.String()),
        unchanged: Type.Array(Type.String()),
        warnings: Type.Array(
          Type.Object({
            flag: Type.String(),
            path: Type.String({ description: 'JSON pointer into the document.' }),
            message: Type.String(),
            errorCode: Type.Optional(
              Type.String({ description: 'PARSE_ERROR: the flag evaluates with this error.' }),
            ),
          }),
          {
            description:
              'Flags imported as written that will not work as meant: targeting that cannot be compiled (the flag evaluates with PARSE_ERROR), operators that yield null as written.',
          },
        ),
      }),
      202: ChangeRequestSchema,
      problems: [409, 412],
      config: access('editor', PROJECT, { environments: PATH_ENVIRONMENT }),
    }),
    async (request, reply) =>
      sendGated(
        reply,
        await services.flagd.import(
          actorOf(request),
          request.params.projectId,
          request.params.envKey,
          request.body,
          { strict: request.query.strict === true },
        ),
        (result) => result,
      ),
  );
}

function exportRoute(app: RoutesApp, services: Services): void {
  app.get(
    '/projects/:projectId/environments/:envKey/flagd',
    {
      ...describe('Export an environment as a flagd flags document', {
        description: `The environment's non-archived flags as a flagd document that flagd evaluates as Flagstaff does. What flagd cannot express exactly is listed in the ${EXPORT_WARNINGS_HEADER} header (JSON). Sent in br or gzip when Accept-Encoding asks.`,
        params: EnvironmentParams,
        headers: Type.Object({ 'if-none-match': Type.Optional(Type.String()) }),
        200: Type.Unknown({ description: 'A flagd document (flags.json schema), with its ETag.' }),
        304: Type.Null({ description: 'Nothing changed since the ETag sent as If-None-Match.' }),
        problems: [409],
        config: access('viewer', PROJECT, { environments: PATH_ENVIRONMENT, syncScope: PATH_SYNC_SCOPE }),
      }),
      onSend: compressBulkAnswer,
    },
    async (request, reply) => {
      const { document, warnings } = await services.flagd.export(
        actorOf(request),
        request.params.projectId,
        request.params.envKey,
        request.admittedBySyncCredential ? 'evaluator' : 'viewer',
      );
      // flagd's own HTTP sync polls this: an unchanged environment costs it a 304 (docs/product.md §9).
      if (warnings.length > 0) reply.header(EXPORT_WARNINGS_HEADER, warningsHeader(warnings));
      return sendWithEtag(request, reply, JSON.stringify(document), 'application/json; charset=utf-8');
    },
  );
}

import { Type } from 'typebox';
import {
  CodeReferenceOutcomeSchema,
  CodeReferenceReportSchema,
  StoredCodeReferenceSchema,
} from '../../domain/schemas/code-reference-schemas.ts';
import type { Services } from '../../services/services.ts';
import { actorOf } from '../request-helpers.ts';
import { access, PROJECT } from '../route-access.ts';
import { describeRoutes } from '../route-schema.ts';
import { Closed, Key } from '../schemas/common.ts';
import type { RoutesPlugin } from '../type-provider.ts';

const describe = describeRoutes(['Code references']);

/** Where repositories name a project's flags (issue 39): `flagstaff refs` reports, the dashboard and MCP read. */
export const codeReferenceRoutes: RoutesPlugin<{ services: Services }> = async (app, { services }) => {
  app.put(
    '/projects/:projectId/code-references/:repository',
    describe("Replace a repository's code references for one branch (what `flagstaff refs` found)", {
      description:
        'The references given replace those stored for the repository and `branch`; a report equal to the stored one writes nothing (`changed: false`) and is not audited.',
      params: Closed({
        projectId: Type.String(),
        repository: Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'The repository name, e.g. `acme/shop`.',
        }),
      }),
      body: CodeReferenceReportSchema,
      200: CodeReferenceOutcomeSchema,
      config: access('editor', PROJECT),
    }),
    async (request) =>
      services.codeReferences.replace(actorOf(request), request.params.projectId, {
        repository: request.params.repository,
        branch: request.body.branch,
        urlTemplate: request.body.urlTemplate ?? null,
        references: request.body.references,
      }),
  );

  app.get(
    '/projects/:projectId/code-references',
    describe("A project's code references, by flag, repository, branch, path and line", {
      params: Closed({ projectId: Type.String() }),
      querystring: Closed({ flag: Type.Optional(Key) }),
      200: Type.Array(StoredCodeReferenceSchema),
      config: access('viewer', PROJECT),
    }),
    async (request) =>
      services.codeReferences.list(actorOf(request), request.params.projectId, request.query.flag),
  );
};

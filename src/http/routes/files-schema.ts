import type { FastifyInstance } from 'fastify';
import { FILES_SCHEMA_PATH, projectFilesSchema } from '../../domain/schemas/project-files.ts';

/**
 * The JSON Schema of flags-as-code files (docs/flags-as-code.md), public like the OpenAPI
 * document: editors and CI fetch it without a key. Built once from the request-body schemas.
 */
export async function registerFilesSchema(app: FastifyInstance): Promise<void> {
  const body = `${JSON.stringify(projectFilesSchema(), null, 2)}\n`;
  app.get(FILES_SCHEMA_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('application/schema+json; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(body),
  );
}

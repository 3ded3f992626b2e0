import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** Where the one OpenAPI document lives; /docs reads it from here too. */
export const OPENAPI_PATH = '/v1/openapi.json';

const LOGO = readFileSync(new URL('../../dashboard/public/favicon.svg', import.meta.url));

/**
 * The OpenAPI 3.1 document generated from the route schemas, served once at /v1/openapi.json,
 * and the reference page at /docs under the project's name and logo. @fastify/swagger-ui
 * serves its own copies at /docs/json and /docs/yaml, which its page loads: those answer with
 * a redirect to the one document instead, so there is a single URL to link and to cache.
 */
export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Flagstaff API',
        version: '1',
        description: 'Feature flags and segments per project, switched per environment, evaluated for users.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: fsk_…' } },
      },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    logo: { type: 'image/svg+xml', content: LOGO, href: '/docs', target: '_self' },
    theme: {
      title: 'Flagstaff API reference',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: LOGO }],
    },
    uiHooks: {
      onRequest: (request, reply, done) => {
        const path = request.url.split('?')[0];
        if (path === '/docs/json' || path === '/docs/yaml') return reply.redirect(OPENAPI_PATH, 308);
        done();
      },
    },
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}

import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build` puts the dashboard (dashboard/vite.config.ts). */
export const DASHBOARD_DIST = join(import.meta.dirname, '../../../dashboard/dist');

/**
 * The paths the dashboard's router shows pages for (dashboard/src/app.tsx): opened or reloaded,
 * they get its page.
 */
const PAGE_PATHS = /^\/(?:sign-in|setup|join|reset-password|projects|settings|audit-log)(?:\/|$)/;

/** The API's own paths: unknown ones are problem+json 404s for every client, as the API promises. */
const API_PATHS = /^\/(?:v1|v2|ofrep|scim|docs|metrics|healthz|readyz|flagd)(?:\/|$)/;

/**
 * A person's browser opening an unknown path (`/members`) gets the dashboard's not-found page
 * with a 404, not raw JSON; scripts and API clients, which do not ask for HTML first, get the
 * problem+json 404.
 */
const opensAPage = (accept: string | undefined, path: string): boolean =>
  accept?.startsWith('text/html') === true && !API_PATHS.test(path);

/**
 * The page may load only its own scripts and styles and talk only to this server; nobody may
 * frame it. React sets styles through the CSSOM, which `style-src 'self'` allows.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache');
}

/**
 * Serves the built dashboard at `/` (docs/product.md §7): its files, and its page for the paths of its
 * pages that a person may open or reload (`/projects/default/flags`), while /v1 and every other
 * path keep their own answers.
 */
export async function registerDashboard(app: FastifyInstance, root = DASHBOARD_DIST): Promise<void> {
  const indexFile = join(root, 'index.html');
  if (!existsSync(indexFile)) {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built. Run "npm run build" (npm install does it) and restart.\n'),
    );
    return;
  }
  const index = readFileSync(indexFile);
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: false,
    setHeaders(response, path) {
      response.header('x-content-type-options', 'nosniff');
      if (path.endsWith('.html')) response.header('content-security-policy', CONTENT_SECURITY_POLICY);
      // Vite names built assets by content hash, so they never change under the same name.
      response.header(
        'cache-control',
        path.startsWith(join(root, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    // A missing file (a path with an extension) is a real 404 too.
    if (extname(path) !== '') return reply.callNotFound();
    if (path !== '/' && !PAGE_PATHS.test(path)) {
      if (!opensAPage(request.headers.accept, path)) return reply.callNotFound();
      reply.code(404);
    }
    return pageHeaders(reply).type('text/html; charset=utf-8').send(index);
  };
  app.get('/', { schema: { hide: true } }, page);
  app.get('/*', { schema: { hide: true } }, page);
}

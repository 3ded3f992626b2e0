import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { build } from 'vite';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Serves the built page from `root` on a port of its own: another origin than the API's. */
async function serveStatic(root: string): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (request, response) => {
    const path =
      normalize(new URL(request.url ?? '/', 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    try {
      const body = await readFile(join(root, path));
      response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A fixture page built and served on an origin of its own. */
export interface StaticSite {
  readonly origin: string;
  /** Stops serving and deletes the build. */
  close(): Promise<void>;
}

/** Builds the Vite fixture in `root` (unminified, into a folder of its own) and serves it. */
export async function buildAndServe(root: string, name: string): Promise<StaticSite> {
  const outDir = await mkdtemp(join(tmpdir(), `flagstaff-${name}-`));
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, minify: false, target: 'es2022' },
  });
  const { server, origin } = await serveStatic(outDir);
  return {
    origin,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard } from '../browser/dashboard-support.ts';
import { type DashboardServer, startDashboardServer } from './support.ts';

describe('the dashboard served at /', () => {
  let server: DashboardServer;
  let script: string;
  beforeAll(async () => {
    const root = await buildDashboard();
    script = (await readdir(join(root, 'assets'))).find((f) => f.endsWith('.js')) as string;
    server = await startDashboardServer({ dashboardRoot: root });
  }, 60_000);
  afterAll(() => server.close());

  it('serves its page at / and at the paths of its pages, with a strict Content-Security-Policy', async () => {
    for (const path of [
      '/',
      '/sign-in',
      '/projects/default/flags/new-checkout',
      '/settings/api-keys',
      '/reset-password',
      '/audit-log',
    ]) {
      const res = await server.call('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<div id="root"></div>');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('serves its hashed assets for a year', async () => {
    const res = await server.call('GET', `/assets/${script}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('leaves unknown API and other paths as problem+json 404s', async () => {
    for (const path of ['/v1/nope', '/v2/projects', '/nope', '/assets/missing.js', '/projects.json']) {
      const res = await server.call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it("opens its not-found page, with a 404, when a person's browser asks for an unknown path", async () => {
    const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const path of ['/members', '/settings-old/x']) {
      const res = await server.call('GET', path, { headers: html });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<div id="root"></div>');
    }
    // The API's own paths stay problem+json even for a browser.
    for (const path of ['/v1/nope', '/ofrep/v1/nope', '/assets/missing.js']) {
      const res = await server.call('GET', path, { headers: html });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toContain('application/problem+json');
    }
  });

  it('says how to build it when it is not built', async () => {
    const empty = await startDashboardServer({
      dashboardRoot: await mkdtemp(join(tmpdir(), 'no-dashboard-')),
    });
    try {
      const res = await empty.call('GET', '/');
      expect(res.status).toBe(503);
      expect(res.body).toContain('npm run build');
    } finally {
      await empty.close();
    }
  });
});

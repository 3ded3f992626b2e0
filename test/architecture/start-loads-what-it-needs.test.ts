import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/**
 * A node started on an in-memory database, in a process of its own: the packages it loaded (every
 * module URL Node's loader hooks saw) and whether Node's bundled undici was loaded.
 */
function startedNodeLoads(): { packages: string[]; undici: boolean } {
  const script = `
    import { registerHooks } from 'node:module';
    const urls = new Set();
    registerHooks({ load(url, context, next) { urls.add(url); return next(url, context); } });
    const { serve } = await import(${JSON.stringify(MAIN)});
    const { loadConfig } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/config.ts', import.meta.url)))});
    const app = await serve(loadConfig({
      FLAGSTAFF_DATABASE_URL: 'sqlite::memory:', FLAGSTAFF_PORT: '0', FLAGSTAFF_LOG_LEVEL: 'silent',
      FLAGSTAFF_ADMIN_KEY: 'fsk_test-admin-key-0123456789abcdefghijklmnop',
    }));
    await app.close();
    const packages = new Set([...urls].map((url) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url)?.[1]).filter(Boolean));
    console.log(JSON.stringify({ packages: [...packages], undici: process.moduleLoadList.some((m) => m.includes('undici')) }));
    process.exit(0);
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) as string);
}

describe('a node as it starts', () => {
  it('leaves out what it needs only later: RE2, OpenID, Redis, the MCP SDK and Node’s fetch (decisions 2093, 2097)', () => {
    const { packages, undici } = startedNodeLoads();
    expect(packages).toContain('fastify');
    expect(packages).toContain('kysely');
    for (const later of ['re2js', 'openid-client', 'ioredis', '@modelcontextprotocol/sdk']) {
      expect(packages).not.toContain(later);
    }
    expect(undici).toBe(false);
  }, 30_000);
});

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../../src/access/budgets.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cli, edit, tempFolder } from './support.ts';

// Flags as code at more flags than a page (issue 38, major 3; decision 1960): pull and plan read
// the list a thousand whole flags a page, apply writes them in batches, each says how far it got
// on stderr, all under the default rate limits without one 429.

vi.setConfig({ testTimeout: 180_000 });

const FLAGS = 2_500;

/** Counts the requests the server answers, and its 429s. */
function countRequests(server: TestServer) {
  const counted = { requests: 0, limited: 0, paths: [] as string[] };
  server.app.server.on('request', (request, response) => {
    counted.requests += 1;
    counted.paths.push(`${request.method} ${request.url}`);
    response.on('finish', () => {
      if (response.statusCode === 429) counted.limited += 1;
    });
  });
  return {
    counted,
    reset: () => {
      counted.requests = 0;
      counted.limited = 0;
      counted.paths = [];
    },
  };
}

/** As a platform team seeds a project: FLAGS flags in batches of 1,000, some on in production with a rule. */
async function seed(server: TestServer): Promise<void> {
  await callAsAdmin(server, 'POST', '/v1/projects', { key: 'shop' });
  await callAsAdmin(server, 'POST', '/v1/projects/shop/segments', { key: 'beta', included: ['ann'] });
  for (let start = 0; start < FLAGS; start += 1000) {
    const flags = Array.from({ length: Math.min(1000, FLAGS - start) }, (_, i) => {
      const n = start + i;
      return {
        flag: `flag-${String(n).padStart(5, '0')}`,
        writes: [
          { create: { tags: [`team-${n % 7}`] } },
          ...(n % 3 === 0
            ? [{ patch: { enabled: true, rules: [{ segments: ['beta'], serve: { variant: 'off' } }] } }]
            : []),
        ],
      };
    });
    const answer = await callAsAdmin(server, 'POST', '/v1/projects/shop/flag-batches', { flags });
    expect(answer.refused).toBe(0);
  }
}

const defaultLimits = { accessControl: { rateLimits: DEFAULT_RATE_LIMITS } };

describeEachDatabase('flags as code at more flags than a page', (database) => {
  let server: TestServer;
  let dir: string;
  let remove: () => Promise<void>;
  let requests: ReturnType<typeof countRequests>;

  beforeEach(async () => {
    server = await startTestServer(database, defaultLimits);
    requests = countRequests(server);
    ({ dir, remove } = await tempFolder());
    await seed(server);
  });
  afterEach(async () => {
    await server.close();
    await remove();
  });

  it('seeds, pulls and plans 2,500 flags in a few requests each, with no 429, saying how far it got', async () => {
    // The seeding: three batches and the project's two creations.
    expect(requests.counted).toMatchObject({ requests: 5, limited: 0 });
    requests.reset();

    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.code, pulled.err).toBe(0);
    expect(pulled.out).toContain(`${FLAGS} flags`);
    expect(pulled.err).toBe(
      [
        'flagstaff pull: fetched 1,000 of 2,500 flags of shop',
        'flagstaff pull: fetched 2,000 of 2,500 flags of shop',
        'flagstaff pull: fetched 2,500 of 2,500 flags of shop',
        '',
      ].join('\n'),
    );
    expect((await readdir(join(dir, 'flags'))).length).toBe(FLAGS);
    // The project, its environments, segments and open change requests, and three pages of flags.
    expect(requests.counted.requests, requests.counted.paths.join('\n')).toBeLessThanOrEqual(7);
    expect(requests.counted.limited).toBe(0);
    requests.reset();

    const planned = await cli(server, 'plan', dir);
    expect(planned.code, planned.out).toBe(0);
    expect(planned.out).toContain('Plan: 0 to create, 0 to update, 0 to delete; 0 unmanaged.');
    expect(planned.err).toContain('flagstaff plan: fetched 2,500 of 2,500 flags of shop');
    expect(requests.counted.requests).toBeLessThanOrEqual(7);
  });

  it('imports 2,500 flags into another server in three batches, each flag as its file says', async () => {
    const pulled = await cli(server, 'pull', dir, ['--project', 'shop']);
    expect(pulled.code, pulled.err).toBe(0);
    await edit(join(dir, 'flags/flag-00003.yaml'), 'enabled: true', 'enabled: false');

    const other = await startTestServer(database, defaultLimits);
    try {
      const counted = countRequests(other);
      const applied = await cli(other, 'apply', dir);
      expect(applied.code, applied.err).toBe(0);
      expect(applied.out).toContain(`Applied: ${FLAGS + 2} changed, 0 change requests, 0 failed.`);
      expect(applied.err).toContain('flagstaff apply: applied 1,000 of 2,500 flags\n');
      expect(applied.err).toContain('flagstaff apply: applied 2,500 of 2,500 flags\n');
      const batches = counted.counted.paths.filter((p) => p.endsWith('/flag-batches'));
      expect(batches).toHaveLength(3);
      expect(counted.counted.limited).toBe(0);

      const flag = async (s: TestServer, key: string) =>
        (await s.call('GET', `/v1/projects/shop/flags/${key}`)).body;
      expect((await flag(other, 'flag-00003')).environments.production.enabled).toBe(false);
      const [before, after] = [await flag(server, 'flag-02499'), await flag(other, 'flag-02499')];
      expect(after.tags).toEqual(before.tags);
      expect(after.environments.production.enabled).toBe(before.environments.production.enabled);
      // Planned again, nothing is left to do.
      expect((await cli(other, 'plan', dir)).code).toBe(0);
    } finally {
      await other.close();
    }
  });
});

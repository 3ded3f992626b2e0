import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildFlagEnvironment, inEnvironments } from '../support/builders.ts';
import { describeEachDatabase } from '../support/database.ts';
import {
  manyAccountEmail,
  manyFlagKey,
  manySegmentKey,
  storeManyAccounts,
  storeManyFlags,
  storeManySegments,
} from '../support/many-flags.ts';
import { startTestServer, type TestResponse, type TestServer } from '../support/server.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';

// The flag list and the audit log page both ways with a count (docs/decisions/1800-paged-lists.md),
// filter in the database (1801), and show a page of flags in every environment at once (1802);
// the segment list pages and searches as the flag list does (1844), and the account list by email
// or name (1846).

const ENVIRONMENTS = ['development', 'staging', 'production'];
/** Made long ago and never evaluated: stale in every environment. */
const LONG_AGO = '2025-01-01T00:00:00.000Z';

const linkOf = (res: TestResponse, rel: 'next' | 'prev') =>
  new RegExp(`<([^>]+)>; rel="${rel}"`).exec(res.headers.get('link') ?? '')?.[1] ?? null;
const keysOf = (res: TestResponse) => res.body.map((f: { key: string }) => f.key);
const countOf = (res: TestResponse) => [res.headers.get('x-total-count'), res.headers.get('x-page-offset')];

describeEachDatabase('paged lists over the API', (database) => {
  let server: TestServer;
  let keys: string[];

  beforeAll(async () => {
    server = await startTestServer(database);
    const project = await server.call('POST', '/v1/projects', {
      body: { key: 'big', environments: ENVIRONMENTS.map((key) => ({ key })) },
    });
    // 250 flags in one transaction, as a large project's would be: every fifth tagged, every
    // tenth switched on in staging.
    const keyOf = (i: number) => manyFlagKey(i, 3);
    keys = Array.from({ length: 250 }, (_, i) => keyOf(i));
    await storeManyFlags(
      server.store,
      project.body.id,
      keys.length,
      (i) => ({
        tags: i % 5 === 0 ? ['fifth'] : [],
        createdAt: LONG_AGO,
        updatedAt: LONG_AGO,
        environments: {
          ...inEnvironments(ENVIRONMENTS, buildFlagEnvironment({ enabled: false })),
          staging: buildFlagEnvironment({ enabled: i % 10 === 0 }),
        },
      }),
      keyOf,
    );
  });
  afterAll(() => server.close());

  it('pages the flags forward and back with their total and each page’s place in it', async () => {
    const first = await server.call('GET', '/v1/projects/big/flags?limit=100');
    expect(keysOf(first)).toEqual(keys.slice(0, 100));
    expect(countOf(first)).toEqual(['250', '0']);
    expect(linkOf(first, 'prev')).toBeNull();

    const second = await server.call('GET', linkOf(first, 'next') as string);
    expect(keysOf(second)).toEqual(keys.slice(100, 200));
    expect(countOf(second)).toEqual(['250', '100']);

    const third = await server.call('GET', linkOf(second, 'next') as string);
    expect(keysOf(third)).toEqual(keys.slice(200));
    expect(countOf(third)).toEqual(['250', '200']);
    expect(linkOf(third, 'next')).toBeNull();

    const back = await server.call('GET', linkOf(third, 'prev') as string);
    expect(keysOf(back)).toEqual(keys.slice(100, 200));
    const start = await server.call('GET', linkOf(back, 'prev') as string);
    expect(start.body).toEqual(first.body);
    expect(linkOf(start, 'prev')).toBeNull();
  });

  it('counts only what the filters keep, and pages within it', async () => {
    const tagged = await server.call('GET', '/v1/projects/big/flags?tag=fifth&limit=20');
    expect(countOf(tagged)).toEqual(['50', '0']);
    expect(keysOf(tagged)).toEqual(keys.filter((_, i) => i % 5 === 0).slice(0, 20));

    const searched = await server.call('GET', '/v1/projects/big/flags?q=FLAG%2024&limit=5');
    expect(countOf(searched)).toEqual(['11', '0']); // flag-024 and flag-240 … flag-249
    expect(keysOf(searched)).toEqual(['flag-024', 'flag-240', 'flag-241', 'flag-242', 'flag-243']);

    // A flag made now is not stale; the 250 made long ago and never evaluated are.
    await server.call('POST', '/v1/projects/big/flags', { body: { key: 'fresh', tags: ['fifth'] } });
    const stale = await server.call('GET', '/v1/projects/big/flags?stale=true&tag=fifth&limit=30');
    expect(countOf(stale)).toEqual(['50', '0']);
    const staleNext = await server.call('GET', linkOf(stale, 'next') as string);
    expect([...keysOf(stale), ...keysOf(staleNext)]).toEqual(keys.filter((_, i) => i % 5 === 0));
    expect(staleNext.body.every((f: { stale: unknown }) => f.stale !== null)).toBe(true);
    const notStale = await server.call('GET', '/v1/projects/big/flags?stale=false&environment=staging');
    expect([keysOf(notStale), countOf(notStale)]).toEqual([['fresh'], ['1', '0']]);
  });

  it('counts the flags on, or off, in an environment, with a page of one', async () => {
    const count = async (query: string) =>
      Number(countOf(await server.call('GET', `/v1/projects/big/flags?${query}&limit=1`))[0]);
    const on = await server.call('GET', '/v1/projects/big/flags?environment=staging&enabled=true&limit=1');
    expect([keysOf(on), countOf(on)]).toEqual([['flag-000'], ['25', '0']]); // every tenth
    expect(await count('environment=staging&enabled=false')).toBe((await count('environment=staging')) - 25);
    expect(await count('enabled=true')).toBe(0); // production, the default
    expect(await count('environment=staging&enabled=true&tag=fifth')).toBe(25); // every tenth is a fifth

    const maybe = await server.call('GET', '/v1/projects/big/flags?environment=staging&enabled=maybe');
    expectValidationFailed(maybe, { path: 'querystring:/enabled', message: 'must be boolean' });
  });

  it('gives each flag’s state in every environment in the one list', async () => {
    const res = await server.call('GET', '/v1/projects/big/flags?limit=2&environment=production');
    expect(res.body.map((f: { enabled: boolean }) => f.enabled)).toEqual([false, false]);
    expect(res.body.map((f: { environments: unknown }) => f.environments)).toEqual([
      {
        development: { enabled: false, lastEvaluatedAt: null },
        staging: { enabled: true, lastEvaluatedAt: null },
        production: { enabled: false, lastEvaluatedAt: null },
      },
      {
        development: { enabled: false, lastEvaluatedAt: null },
        staging: { enabled: false, lastEvaluatedAt: null },
        production: { enabled: false, lastEvaluatedAt: null },
      },
    ]);
  });

  it('names every tag of the project’s flags once, for the tag filter', async () => {
    await server.call('POST', '/v1/projects/big/flags', { body: { key: 'tagged', tags: ['web', 'beta'] } });
    const tags = await server.call('GET', '/v1/projects/big/flag-tags');
    expect([tags.status, tags.body]).toEqual([200, ['beta', 'fifth', 'web']]);
  });

  it('refuses a page both after one cursor and before another', async () => {
    const first = await server.call('GET', '/v1/projects/big/flags?limit=10');
    const next = new URL(linkOf(first, 'next') as string, server.url);
    next.searchParams.set('before', next.searchParams.get('cursor') as string);
    const both = await server.call('GET', `${next.pathname}${next.search}`);
    expectValidationFailed(both, {
      path: 'querystring:/before',
      message: 'must not be given with cursor: a page is either after one cursor or before another',
    });
  });

  it('pages the segments both ways with their total, and searches their keys and names', async () => {
    const project = await server.call('GET', '/v1/projects/big');
    const segmentKeys = Array.from({ length: 30 }, (_, i) => manySegmentKey(i, 2));
    await storeManySegments(server.store, project.body.id, segmentKeys.length, (i) => manySegmentKey(i, 2));
    const first = await server.call('GET', '/v1/projects/big/segments?limit=20');
    expect([keysOf(first), countOf(first)]).toEqual([segmentKeys.slice(0, 20), ['30', '0']]);
    const second = await server.call('GET', linkOf(first, 'next') as string);
    expect([keysOf(second), countOf(second)]).toEqual([segmentKeys.slice(20), ['30', '20']]);
    const back = await server.call('GET', linkOf(second, 'prev') as string);
    expect(back.body).toEqual(first.body);

    // "Segment 2" is the name of segment-02 and of segment-20 … segment-29.
    const searched = await server.call('GET', '/v1/projects/big/segments?q=sEgMeNt%202&limit=5');
    expect(countOf(searched)).toEqual(['11', '0']);
    expect(keysOf(searched)).toEqual(['segment-02', 'segment-20', 'segment-21', 'segment-22', 'segment-23']);
    const wildcard = await server.call('GET', '/v1/projects/big/segments?q=_');
    expect([keysOf(wildcard), countOf(wildcard)]).toEqual([[], ['0', '0']]);
  });

  it('pages the accounts both ways with their total, and searches their emails and names', async () => {
    await storeManyAccounts(server.store, 30, 2);
    const emailsOf = (res: TestResponse) =>
      res.body.map((a: { email: string }) => a.email).filter((e: string) => e.startsWith('person-'));
    const emails = Array.from({ length: 30 }, (_, i) => manyAccountEmail(i, 2));
    const all = await server.call('GET', '/v1/accounts?limit=1000');
    const others = all.body.length - emails.length; // the server's own accounts, made before these
    const first = await server.call('GET', `/v1/accounts?limit=${others + 20}`);
    expect([emailsOf(first), countOf(first)]).toEqual([emails.slice(0, 20), [String(others + 30), '0']]);
    const second = await server.call('GET', linkOf(first, 'next') as string);
    expect([emailsOf(second), countOf(second)]).toEqual([
      emails.slice(20),
      [String(others + 30), String(others + 20)],
    ]);
    const back = await server.call('GET', linkOf(second, 'prev') as string);
    expect(back.body).toEqual(first.body);

    // "Person 2" is the name of person-02 and of person-20 … person-29.
    const byName = await server.call('GET', '/v1/accounts?q=pErSoN%202&limit=5');
    expect(countOf(byName)).toEqual(['11', '0']);
    expect(emailsOf(byName)).toEqual(['02', '20', '21', '22', '23'].map((n) => `person-${n}@example.com`));
    const byEmail = await server.call('GET', '/v1/accounts?q=ON-07%40EXAMPLE');
    expect([emailsOf(byEmail), countOf(byEmail)]).toEqual([[manyAccountEmail(7, 2)], ['1', '0']]);
    const wildcard = await server.call('GET', '/v1/accounts?q=_');
    expect([emailsOf(wildcard), countOf(wildcard)]).toEqual([[], ['0', '0']]);
  });

  it('pages the audit log from newest to oldest and back, with its total', async () => {
    for (let i = 0; i < 5; i++) {
      await server.call('PATCH', `/v1/projects/big/flags/flag-00${i}`, { body: { description: `v${i}` } });
    }
    const all = await server.call('GET', '/v1/projects/big/audit-log?action=flag.updated');
    expect(countOf(all)).toEqual(['5', '0']);
    const first = await server.call('GET', '/v1/projects/big/audit-log?action=flag.updated&limit=2');
    const second = await server.call('GET', linkOf(first, 'next') as string);
    expect(countOf(second)).toEqual(['5', '2']);
    expect(second.body).toEqual(all.body.slice(2, 4));
    const back = await server.call('GET', linkOf(second, 'prev') as string);
    expect(back.body).toEqual(first.body);
    const organisation = await server.call('GET', '/v1/audit-log?action=flag.updated&limit=1');
    expect(countOf(organisation)).toEqual(['5', '0']);
  });
});

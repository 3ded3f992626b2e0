import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import type { TestServer } from '../support/server.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';
import { startServer } from './support/server.ts';

// flagd's conformance flag file, imported whole, and the cases of docs/product.md §6 ("Import accepts what
// flagd loads") through import + OFREP + the REST evaluation route. The file is compared flag by
// flag with flagd-core in flagd-ofrep-differential.test.ts; here are the answers a user reads.

const TESTKIT = JSON.parse(readFileSync('test/data/flagd-testbed/testkit-flags.json', 'utf8'));

const flagdPath = (project: string, environment: string, query = '') =>
  `/v1/projects/${project}/environments/${environment}/flagd${query}`;

const flag = (variants: Record<string, unknown>, fields: Record<string, unknown> = {}) => ({
  state: 'ENABLED',
  variants,
  defaultVariant: Object.keys(variants)[0],
  ...fields,
});

/** Good flags with one whose targeting names an evaluator the document lacks. */
const ONE_BROKEN = {
  flags: {
    greeting: flag({ hello: 'hello', hi: 'hi' }, { targeting: { if: [{ $ref: 'isStaff' }, 'hi', null] } }),
    'dark-mode': flag({ on: true, off: false }),
    broken: flag(
      { a: 'a', b: 'b' },
      { targeting: { if: [{ $ref: 'missing' }, 'b', 'a'] }, metadata: { owner: 'web' } },
    ),
  },
  $evaluators: { isStaff: { ends_with: [{ var: 'email' }, '@staff.example'] } },
  metadata: { flagSetId: 'shop' },
};

/** JSON text of `!` nested `levels` deep: what a hostile document might send as targeting (JSON.stringify would overflow). */
const deepTargeting = (levels: number): string =>
  `${'{"!":['.repeat(levels)}{"var":"x"}${']}'.repeat(levels)}`;

describeEachDatabase('flagd documents as flagd loads them (docs/product.md §6)', (database) => {
  let server: TestServer;
  let projects = 0;
  beforeAll(async () => {
    server = await startServer(database);
  });
  afterAll(() => server.close());

  /** A fresh project, so that each test imports into empty environments. */
  async function project(): Promise<string> {
    const key = `conformance-${++projects}`;
    const res = await server.call('POST', '/v1/projects', { body: { key, name: key } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return key;
  }

  const ofrep = (
    projectKey: string,
    key: string,
    context: Record<string, unknown> = {},
    env = 'development',
  ) =>
    server.call('POST', `/ofrep/v1/evaluate/flags/${key}`, {
      body: { context },
      headers: { 'x-flagstaff-project': projectKey, 'x-flagstaff-environment': env },
    });

  const rest = (projectKey: string, key: string, attributes: Record<string, unknown> = {}) =>
    server.call('POST', `/v1/flags/${key}/evaluate?project=${projectKey}`, {
      body: { environment: 'development', attributes },
    });

  const servedValue = async (projectKey: string, key: string, context: Record<string, unknown> = {}) => {
    const res = await ofrep(projectKey, key, context);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.value;
  };

  describe("flagd's conformance flag file", () => {
    let key: string;
    let imported: { status: number; body: Record<string, unknown> & { warnings: Record<string, string>[] } };
    beforeAll(async () => {
      key = await project();
      imported = await server.call('POST', flagdPath(key, 'development'), { body: TESTKIT });
    });

    it('imports whole, listing the flags that will not work as written', () => {
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect((imported.body.created as string[]).length).toBe(Object.keys(TESTKIT.flags).length);
      expect(imported.body.warnings.map((w) => [w.flag, w.errorCode ?? null])).toEqual([
        ['semver-invalid-operator-flag', null],
        ['ref-to-nonexistent-evaluator-flag', 'PARSE_ERROR'],
        ['starts-with-wrong-args-flag', null],
        ['ends-with-wrong-args-flag', null],
        ['semver-wrong-args-flag', null],
      ]);
      for (const warning of imported.body.warnings) {
        expect(warning.path).toMatch(new RegExp(`^/flags/${warning.flag}/targeting`));
      }
    });

    it('keeps boolean variant names, and the other environment works', async () => {
      expect((await ofrep(key, 'boolean-zero-flag')).body).toMatchObject({
        value: false,
        variant: 'zero',
        reason: 'STATIC',
      });
      // Not imported into production: the flag starts disabled there, off being its false variant.
      expect((await ofrep(key, 'boolean-zero-flag', {}, 'production')).body).toMatchObject({
        value: false,
        variant: 'zero',
        reason: 'DISABLED',
      });
      const again = await server.call('POST', flagdPath(key, 'production'), { body: TESTKIT });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect((await ofrep(key, 'boolean-zero-flag', {}, 'production')).body).toMatchObject({
        reason: 'STATIC',
      });
    });

    it('compares versions with v prefixes, partial versions and build metadata as flagd does', async () => {
      const cases: [string, string, string][] = [
        ['equal-greater-lesser-version-flag', '2.0.0', 'equal'],
        ['equal-greater-lesser-version-flag', '2.1.0', 'greater'],
        ['equal-greater-lesser-version-flag', '1.9.0', 'lesser'],
        ['equal-greater-lesser-version-flag', '2.0.0-alpha', 'lesser'],
        ['equal-greater-lesser-version-flag', '2.0.0.0', 'none'],
        ['major-minor-version-flag', '3.0.1', 'minor'],
        ['major-minor-version-flag', '3.1.0', 'major'],
        ['major-minor-version-flag', '4.0.0', 'none'],
        ['semver-v-prefix-flag', '1.0.0', 'match'],
        ['semver-v-prefix-flag', 'v1.0.0', 'match'],
        ['semver-v-prefix-flag', '2.0.0', 'no-match'],
        ['semver-partial-version-flag', '1.5.0', 'match'],
        ['semver-partial-version-flag', '1.0.0', 'match'],
        ['semver-partial-version-flag', '2.0.0', 'no-match'],
        ['semver-build-metadata-flag', '1.0.0+other', 'match'],
        ['semver-build-metadata-flag', '2.0.0', 'no-match'],
      ];
      for (const [flagKey, version, value] of cases) {
        expect(await servedValue(key, flagKey, { version }), `${flagKey} ${version}`).toBe(value);
      }
    });

    it('serves prefixes and suffixes, and clamps negative fractional weights to 0', async () => {
      for (const [id, value] of [
        ['abcdef', 'prefix'],
        ['uvwxyz', 'postfix'],
        ['abcxyz', 'prefix'],
        ['lmnopq', 'none'],
      ]) {
        expect(await servedValue(key, 'starts-ends-flag', { id }), id).toBe(value);
      }
      for (let i = 0; i < 20; i++) {
        expect(await servedValue(key, 'fractional-negative-weight-flag', { targetingKey: `user-${i}` })).toBe(
          'two',
        );
      }
    });

    it('answers DEFAULT without a value when there is no default variant and nothing is picked', async () => {
      for (const flagKey of ['null-default-flag', 'undefined-default-flag']) {
        const res = await ofrep(key, flagKey);
        expect(res.body, flagKey).toEqual({ key: flagKey, reason: 'DEFAULT', metadata: {} });
      }
      const target = 'no-default-flag-null-targeting-variant';
      expect((await ofrep(key, target, { email: 'wozniak@orange.com' })).body).toEqual({
        key: target,
        reason: 'DEFAULT',
        metadata: {},
      });
      expect((await ofrep(key, target, { email: 'jobs@orange.com' })).body).toMatchObject({
        value: 'CEO',
        reason: 'TARGETING_MATCH',
      });
      expect((await rest(key, 'null-default-flag')).body).toEqual({
        key: 'null-default-flag',
        type: 'boolean',
        value: null,
        reason: 'default',
        variant: null,
      });
    });

    it('answers PARSE_ERROR for targeting naming an evaluator the document lacks', async () => {
      const res = await ofrep(key, 'ref-to-nonexistent-evaluator-flag', { email: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        key: 'ref-to-nonexistent-evaluator-flag',
        errorCode: 'PARSE_ERROR',
        metadata: {},
      });
      expect(res.body.errorDetails).toContain('nonexistent_evaluator');
      const viaRest = await rest(key, 'ref-to-nonexistent-evaluator-flag');
      expect(viaRest.status).toBe(200);
      expect(viaRest.body).toMatchObject({
        reason: 'error',
        errorCode: 'PARSE_ERROR',
        value: null,
        variant: null,
      });
    });

    it("carries each flag's metadata in OFREP answers", async () => {
      expect((await ofrep(key, 'metadata-flag')).body.metadata).toEqual({
        string: '1.0.2',
        integer: 2,
        boolean: true,
        float: 0.1,
      });
    });

    it('exports, and imports the export, unchanged: broken flags included', async () => {
      const first = await server.call('GET', flagdPath(key, 'development'));
      expect(first.status).toBe(200);
      const copy = await project();
      const reimported = await server.call('POST', flagdPath(copy, 'development'), { body: first.body });
      expect(reimported.status, JSON.stringify(reimported.body)).toBe(200);
      expect(reimported.body.warnings.map((w: { flag: string }) => w.flag).sort()).toEqual(
        imported.body.warnings.map((w) => w.flag).sort(),
      );
      const second = await server.call('GET', flagdPath(copy, 'development'));
      expect(second.body).toEqual(first.body);
      const same = await server.call('POST', flagdPath(key, 'development'), { body: first.body });
      expect(same.body.created).toEqual([]);
      expect(same.body.updated).toEqual([]);
    });
  });

  describe('a document with one broken flag among good ones', () => {
    it('is imported with a warning: the good flags evaluate, the broken one answers PARSE_ERROR', async () => {
      const key = await project();
      const res = await server.call('POST', flagdPath(key, 'development'), { body: ONE_BROKEN });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.created.sort()).toEqual(['broken', 'dark-mode', 'greeting']);
      expect(res.body.warnings).toEqual([
        {
          flag: 'broken',
          path: '/flags/broken/targeting/if/0',
          message: '$ref names no evaluator: "missing" (the flag evaluates with PARSE_ERROR)',
          errorCode: 'PARSE_ERROR',
        },
      ]);
      expect(await servedValue(key, 'greeting', { email: 'ann@staff.example' })).toBe('hi');
      expect(await servedValue(key, 'dark-mode')).toBe(true);
      const broken = await ofrep(key, 'broken');
      expect(broken.status).toBe(400);
      expect(broken.body).toMatchObject({
        key: 'broken',
        errorCode: 'PARSE_ERROR',
        metadata: { flagSetId: 'shop', owner: 'web' },
      });
      const bulk = await server.call('POST', '/ofrep/v1/evaluate/flags', {
        body: { context: {} },
        headers: { 'x-flagstaff-project': key, 'x-flagstaff-environment': 'development' },
      });
      expect(bulk.body.flags.find((f: { key: string }) => f.key === 'broken')).toMatchObject({
        errorCode: 'PARSE_ERROR',
      });
      // The stored targeting does not block other changes to the flag.
      const stored = await server.call('GET', `/v1/projects/${key}/flags/broken`);
      const patched = await server.call('PATCH', `/v1/flags/${stored.body.id}?environment=development`, {
        body: { enabled: false },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    });

    it('is refused with ?strict=true, naming the flag, and nothing is written', async () => {
      const key = await project();
      const res = await server.call('POST', flagdPath(key, 'development', '?strict=true'), {
        body: ONE_BROKEN,
      });
      expectValidationFailed(res, {
        path: '/flags/broken/targeting/if/0',
        message: 'flag "broken": $ref names no evaluator: "missing" (the flag evaluates with PARSE_ERROR)',
      });
      expect((await server.call('GET', `/v1/projects/${key}/flags`)).body).toEqual([]);
    });

    it('refuses a PATCH that brings targeting which cannot compile', async () => {
      const key = await project();
      await server.call('POST', flagdPath(key, 'development'), { body: ONE_BROKEN });
      const stored = await server.call('GET', `/v1/projects/${key}/flags/greeting`);
      const res = await server.call('PATCH', `/v1/flags/${stored.body.id}?environment=development`, {
        body: { targeting: { if: [{ $ref: 'missing' }, 'hi', null] } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(res.status).toBe(400);
    });
  });

  it('never matches a variable path through prototypes (constructor.name, __proto__.x, toString)', async () => {
    const key = await project();
    const flags = Object.fromEntries(
      ['constructor.name', '__proto__.x', 'a.constructor', 'toString'].map((path, i) => [
        `proto-${i}`,
        flag(
          { on: true, off: false },
          { defaultVariant: 'off', targeting: { if: [{ '!!': [{ var: path }] }, 'on', null] } },
        ),
      ]),
    );
    const res = await server.call('POST', flagdPath(key, 'development'), { body: { flags } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const flagKey of Object.keys(flags)) {
      expect((await ofrep(key, flagKey, { targetingKey: 'u', a: {} })).body, flagKey).toMatchObject({
        value: false,
        reason: 'DEFAULT',
      });
    }
  });

  describe('deep nesting', () => {
    it('answers 400, never 500, for targeting nested 10,000 deep', async () => {
      const key = await project();
      const deep = `{"flags":{"deep":{"state":"ENABLED","variants":{"on":true,"off":false},"targeting":${deepTargeting(10_000)}}}}`;
      const res = await server.call('POST', flagdPath(key, 'development'), { body: deep });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('answers 400 for evaluators that nest too deep only once inlined', async () => {
      const key = await project();
      const evaluators: Record<string, unknown> = { e0: { var: 'x' } };
      for (let i = 1; i < 200; i++) evaluators[`e${i}`] = { '!': [{ '!': [{ $ref: `e${i - 1}` }] }] };
      const document = {
        flags: {
          deep: flag({ on: true, off: false }, { targeting: { if: [{ $ref: 'e199' }, 'on', 'off'] } }),
        },
        $evaluators: evaluators,
      };
      const res = await server.call('POST', flagdPath(key, 'development'), { body: document });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain('deeper than 64');
    });

    it('refuses a PATCH with targeting nested 10,000 deep with 400', async () => {
      const key = await project();
      await server.call('POST', flagdPath(key, 'development'), { body: ONE_BROKEN });
      const stored = await server.call('GET', `/v1/projects/${key}/flags/greeting`);
      const res = await server.call('PATCH', `/v1/flags/${stored.body.id}?environment=development`, {
        body: `{"targeting":${deepTargeting(10_000)}}`,
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(res.status).toBe(400);
    });
  });
});

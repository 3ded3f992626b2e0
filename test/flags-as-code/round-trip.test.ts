import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { chance, pick, type Random, seededRandom } from '../support/random.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cli, tempFolder } from './support.ts';

// A generated project of 200 flags goes server → files → another server → files: everything the
// API can express survives (targets, rules, rollouts, prerequisites, segments within segments,
// JsonLogic targeting, metadata, tags, archiving), and both servers answer alike.

const ENVIRONMENTS = ['development', 'staging', 'production'];
const FLAGS = 200;
const SEGMENTS = 12;

type Body = Record<string, unknown>;

const ok = (server: TestServer, method: string, path: string, body: unknown): Promise<Body> =>
  callAsAdmin(server, method, path, body);

function condition(random: Random, segments: readonly string[]): Body {
  if (segments.length > 0 && chance(random, 0.2)) {
    return {
      type: 'segment',
      segment: pick(random, segments),
      ...(chance(random, 0.3) ? { negate: true } : {}),
    };
  }
  return pick(random, [
    { type: 'attribute', attribute: 'country', operator: 'in', values: ['NL', 'DE', 'FR'] },
    { type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' },
    { type: 'attribute', attribute: 'user.age', operator: 'gte', value: 18 },
    { type: 'attribute', attribute: 'version', operator: 'semver_gte', value: '2.1.0' },
    { type: 'attribute', attribute: 'email', operator: 'ends_with', value: '@example.com', negate: true },
    { type: 'attribute', attribute: 'beta', operator: 'exists' },
  ]);
}

const variantsOf = (type: string, i: number): Body[] | undefined => {
  if (type === 'boolean') return undefined;
  const values =
    type === 'string'
      ? ['red', 'green', 'blue']
      : type === 'number'
        ? [1, 2.5, i]
        : [{ a: 1 }, { b: [i, 'x'] }];
  return values.map((value, j) => ({ key: `v${j}`, value, ...(j === 0 ? { name: `Variant ${j}` } : {}) }));
};

function rollout(random: Random, variants: readonly string[]): Body {
  return {
    ...(chance(random, 0.5) ? { bucketBy: 'accountId' } : {}),
    ...(chance(random, 0.3) ? { seed: 'salt' } : {}),
    weights: variants.map((variant) => ({ variant, weight: Math.floor(random() * 100) })),
  };
}

/** The project, through the API, as a person would have built it over time. */
async function generate(server: TestServer): Promise<void> {
  const random = seededRandom(25);
  await ok(server, 'POST', '/v1/projects', {
    key: 'big',
    name: 'Big project',
    description: 'Generated',
    environments: ENVIRONMENTS.map((key) => ({ key })),
  });
  await ok(server, 'PATCH', '/v1/projects/big/environments/staging', {
    description: 'Pre-release',
    protected: true,
  });
  const segments: string[] = [];
  for (let i = 0; i < SEGMENTS; i++) {
    const key = `segment-${i}`;
    await ok(server, 'POST', '/v1/projects/big/segments', {
      key,
      ...(i % 3 === 0 ? { name: `Segment ${i}`, description: 'people' } : {}),
      match: pick(random, ['all', 'any']),
      rules: Array.from({ length: 1 + (i % 3) }, () => condition(random, segments)),
      ...(chance(random, 0.5) ? { included: [`user-${i}`, `user-${i + 1}`] } : {}),
      ...(chance(random, 0.3) ? { excluded: [`blocked-${i}`] } : {}),
    });
    segments.push(key);
  }
  const types = ['boolean', 'string', 'number', 'object'];
  const flags: { key: string; variants: string[] }[] = [];
  for (let i = 0; i < FLAGS; i++) {
    const key = `flag-${String(i).padStart(3, '0')}`;
    const type = types[i % types.length] as string;
    const created = await ok(server, 'POST', '/v1/projects/big/flags', {
      key,
      type,
      ...(i % 5 === 0 ? { name: `Flag ${i}`, description: `What flag ${i} does` } : {}),
      ...(variantsOf(type, i) ? { variants: variantsOf(type, i) } : {}),
      ...(i % 4 === 1 ? { tags: ['web', `team-${i % 3}`] } : {}),
      ...(i % 6 === 2 ? { metadata: { owner: `team-${i % 3}`, ticket: i, temporary: i % 2 === 0 } } : {}),
    });
    const variants = (created.variants as { key: string }[]).map((v) => v.key);
    const environments: Record<string, Body> = {};
    for (const env of ENVIRONMENTS) {
      if (env === 'staging' && type === 'boolean' && i % 8 === 0) {
        environments[env] = {
          enabled: true,
          targeting: { if: [{ '==': [{ var: 'country' }, 'NL'] }, 'on', 'off'] },
        };
        continue;
      }
      const state: Body = {
        enabled: chance(random, 0.6),
        offVariant: pick(random, [...variants, null]),
        defaultVariant: pick(random, variants),
      };
      if (chance(random, 0.2)) state.defaultRollout = rollout(random, variants);
      if (chance(random, 0.4))
        state.targets = [{ variant: pick(random, variants), values: [`u${i}`, `a${i}`] }];
      if (chance(random, 0.6)) {
        state.rules = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, r) => ({
          ...(r === 0 ? { description: 'first' } : {}),
          ...(chance(random, 0.5) ? { segments: [pick(random, segments)] } : {}),
          conditions: [condition(random, segments)],
          serve: chance(random, 0.7)
            ? { variant: pick(random, variants) }
            : { rollout: rollout(random, variants) },
        }));
      }
      const required = flags.filter((f) => f.key.endsWith('1'));
      if (required.length > 0 && chance(random, 0.2)) {
        const prerequisite = pick(random, required);
        state.prerequisites = [{ flag: prerequisite.key, variants: [pick(random, prerequisite.variants)] }];
      }
      environments[env] = state;
    }
    await ok(server, 'PATCH', `/v1/flags/${created.id}`, {
      environments,
      ...(i % 37 === 5 ? { archived: true } : {}),
    });
    flags.push({ key, variants });
  }
}

/** Every file of a pulled folder, without the schema comment (it names the server). */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const folder of ['', 'segments', 'flags']) {
    for (const name of (await readdir(join(dir, folder))).filter((n) => n.endsWith('.yaml')).sort()) {
      const text = await readFile(join(dir, folder, name), 'utf8');
      files[join(folder, name)] = text.slice(text.indexOf('\n') + 1);
    }
  }
  return files;
}

/** Lists whose order means nothing: files keep them sorted (docs/decisions/1740). */
const SETS = new Set(['tags', 'included', 'excluded', 'values']);

/** A resource as the API answers it, without what the server owns, its sets sorted. */
function owned(resource: Body): Body {
  const { id, projectId, version, createdAt, updatedAt, lastEvaluatedAt, ...rest } = resource;
  return JSON.parse(
    JSON.stringify(rest, (key, value) => {
      if (key === 'id') return undefined;
      return SETS.has(key) && Array.isArray(value) ? [...value].sort() : value;
    }),
  );
}

async function project(
  server: TestServer,
): Promise<{ flags: Body[]; segments: Body[]; environments: Body[] }> {
  const list = (await server.call('GET', '/v1/projects/big/flags?limit=1000')).body as { key: string }[];
  const flags = [];
  for (const { key } of list)
    flags.push(owned((await server.call('GET', `/v1/projects/big/flags/${key}`)).body));
  const segments = ((await server.call('GET', '/v1/projects/big/segments')).body as Body[]).map(owned);
  const environments = ((await server.call('GET', '/v1/projects/big/environments')).body as Body[])
    .map(owned)
    .sort((a, b) => String(a.key).localeCompare(String(b.key)));
  return { flags, segments, environments };
}

describeEachDatabase('flags as code: a round trip of 200 flags', (database) => {
  let source: TestServer;
  let target: TestServer;
  const folders: { remove: () => Promise<void> }[] = [];
  const folder = async () => {
    const made = await tempFolder();
    folders.push(made);
    return made.dir;
  };

  beforeEach(async () => {
    source = await startTestServer(database);
    target = await startTestServer(database);
  });
  afterEach(async () => {
    await Promise.all([source.close(), target.close(), ...folders.map((f) => f.remove())]);
  });

  it('keeps everything the API can express, from one server to another and back to the same files', async () => {
    await generate(source);
    const first = await folder();
    expect((await cli(source, 'pull', first, ['--project', 'big'])).code).toBe(0);
    expect((await cli(source, 'plan', first)).code).toBe(0);

    const applied = await cli(target, 'apply', first);
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.out).toContain(
      `Applied: ${1 + 1 + SEGMENTS + FLAGS} changed, 0 change requests, 0 failed.`,
    );
    expect((await cli(target, 'plan', first)).code).toBe(0);

    const second = await folder();
    expect((await cli(target, 'pull', second, ['--project', 'big'])).code).toBe(0);
    expect(await filesOf(second)).toEqual(await filesOf(first));

    const [before, after] = [await project(source), await project(target)];
    expect(after.flags).toHaveLength(FLAGS);
    expect(after).toEqual(before);
    const archived = after.flags.filter((f) => f.archived).length;
    const withPrerequisites = after.flags.filter((f) =>
      Object.values(f.environments as Record<string, Body>).some((e) => e.prerequisites),
    ).length;
    const nested = after.segments.filter((s) => (s.rules as Body[]).some((r) => r.type === 'segment')).length;
    expect({ archived: archived > 0, withPrerequisites: withPrerequisites > 0, nested: nested > 0 }).toEqual({
      archived: true,
      withPrerequisites: true,
      nested: true,
    });
  }, 600_000);
});

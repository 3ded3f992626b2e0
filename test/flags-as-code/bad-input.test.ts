import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cli, tempFolder } from './support.ts';

// Each test runs several commands of many requests each: generous on a loaded machine.
vi.setConfig({ testTimeout: 90_000 });

// Files a person gets wrong: plan names the file, the line and the field, and nothing changes.

let server: TestServer;
let dir: string;
let remove: () => Promise<void>;

const PROJECT = 'key: shop\nenvironments:\n  - key: development\n  - key: production\n';
const FLAG = [
  'key: checkout',
  'type: string',
  'variants:',
  '  - key: old',
  '    value: old',
  '  - key: new',
  '    value: new',
  'environments:',
  '  production:',
  '    enabled: true',
  '    defaultVariant: old',
  '',
].join('\n');

beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/v1/projects', { body: { key: 'shop' } });
});
afterAll(() => server.close());

beforeEach(async () => {
  ({ dir, remove } = await tempFolder());
  await mkdir(join(dir, 'flags'));
  await mkdir(join(dir, 'segments'));
  await writeFile(join(dir, 'project.yaml'), PROJECT);
  await writeFile(join(dir, 'flags/checkout.yaml'), FLAG);
  return remove;
});

/** Plans, expects it refused with exactly these lines on standard error, and the server untouched. */
async function refused(...expected: RegExp[]): Promise<void> {
  const before = (await server.call('GET', '/v1/projects/shop/audit-log')).body.length;
  const plan = await cli(server, 'plan', dir);
  expect(plan.code).toBe(1);
  expect(plan.out).toBe('');
  const lines = plan.err.trim().split('\n');
  expect(lines.at(-1)).toMatch(/problems? in the files; nothing planned/);
  expect(lines.slice(0, -1)).toHaveLength(expected.length);
  expected.forEach((pattern, i) => {
    expect(lines[i]).toMatch(pattern);
  });
  const apply = await cli(server, 'apply', dir);
  expect(apply.code).toBe(1);
  expect(apply.err).toContain('nothing changed');
  expect((await server.call('GET', '/v1/projects/shop/audit-log')).body.length).toBe(before);
}

describe('plan refuses files that are wrong', () => {
  it('names the file, line and field of an unknown field', async () => {
    await writeFile(join(dir, 'flags/checkout.yaml'), FLAG.replace('    enabled: true', '    enabeld: true'));
    await refused(/^flags\/checkout\.yaml:10: \/environments\/production\/enabeld: unknown field "enabeld"$/);
  });

  it('names the line of a value of the wrong type', async () => {
    await writeFile(join(dir, 'flags/checkout.yaml'), FLAG.replace('enabled: true', 'enabled: "yes"'));
    await refused(/^flags\/checkout\.yaml:10: \/environments\/production\/enabled: must be boolean$/);
  });

  it('names a variant the flag does not have', async () => {
    await writeFile(
      join(dir, 'flags/checkout.yaml'),
      FLAG.replace('defaultVariant: old', 'defaultVariant: blue'),
    );
    await refused(
      /^flags\/checkout\.yaml:11: \/environments\/production\/defaultVariant: unknown variant "blue" \(the flag has old, new\)$/,
    );
  });

  it('names a segment that neither the files nor the server have', async () => {
    await writeFile(
      join(dir, 'flags/checkout.yaml'),
      `${FLAG}    rules:\n      - segments: [beta]\n        serve: { variant: new }\n`,
    );
    await refused(
      /^flags\/checkout\.yaml:13: \/environments\/production\/rules\/0\/segments\/0: unknown segment "beta"$/,
    );
  });

  it('with --prune, names a segment only the server has (prune would delete it)', async () => {
    await server.call('POST', '/v1/projects/shop/segments', { body: { key: 'staff' } });
    await writeFile(
      join(dir, 'flags/checkout.yaml'),
      `${FLAG}    rules:\n      - segments: [staff]\n        serve: { variant: new }\n`,
    );
    expect((await cli(server, 'plan', dir)).code).toBe(2);
    const pruning = await cli(server, 'plan', dir, ['--prune']);
    expect(pruning.code).toBe(1);
    expect(pruning.err).toContain(
      'flags/checkout.yaml:13: /environments/production/rules/0/segments/0: unknown segment "staff"',
    );
    await server.call(
      'DELETE',
      `/v1/segments/${(await server.call('GET', '/v1/projects/shop/segments')).body[0].id}`,
    );
  });

  it('names a segment rule inside a segment that names no segment', async () => {
    await writeFile(
      join(dir, 'segments/staff.yaml'),
      'key: staff\nrules:\n  - type: segment\n    segment: ghosts\n',
    );
    await refused(/^segments\/staff\.yaml:4: \/rules\/0\/segment: unknown segment "ghosts"$/);
  });

  it('names both files that give the same key', async () => {
    await writeFile(join(dir, 'flags/checkout-copy.json'), JSON.stringify({ key: 'checkout' }, null, 2));
    await refused(
      /^flags\/checkout\.yaml:1: \/key: flag "checkout" is also in flags\/checkout-copy\.json \(duplicated key\)$/,
    );
  });

  it('names a field written twice in one file', async () => {
    await writeFile(join(dir, 'flags/checkout.yaml'), `${FLAG}type: number\n`);
    await refused(/^flags\/checkout\.yaml:12: field "type" appears twice \(duplicated key\)$/);
  });

  it('names an environment the project does not have', async () => {
    await writeFile(join(dir, 'flags/checkout.yaml'), FLAG.replace('  production:', '  staging:'));
    await refused(/^flags\/checkout\.yaml:9: \/environments\/staging: unknown environment "staging"/);
  });

  it('names the place in a flagd document that flagd would not load', async () => {
    await mkdir(join(dir, 'flagd'));
    const document = { flags: { search: { state: 'ON', variants: { on: true }, defaultVariant: 'on' } } };
    await writeFile(join(dir, 'flagd/development.json'), JSON.stringify(document, null, 2));
    const plan = await cli(server, 'plan', dir);
    expect(plan.code).toBe(1);
    expect(plan.err).toMatch(/^flagd\/development\.json:4: \/flags\/search\/state: /m);
  });

  it('names a flag that a flagd document and a flag file both give for one environment', async () => {
    await mkdir(join(dir, 'flagd'));
    const document = {
      flags: { checkout: { state: 'ENABLED', variants: { old: 'old', new: 'new' }, defaultVariant: 'new' } },
    };
    await writeFile(join(dir, 'flagd/production.json'), JSON.stringify(document, null, 2));
    await refused(
      /^flagd\/production\.json:3: \/flags\/checkout: flag "checkout" in "production" is also given by flags\/checkout\.yaml/,
    );
  });

  it('reports one wrong condition as one problem, at its line', async () => {
    await writeFile(
      join(dir, 'flags/checkout.yaml'),
      `${FLAG}    rules:\n      - conditions:\n          - type: attribute\n            attribute: country\n            operator: in\n            value: [BE, NL]\n        serve: { variant: new }\n`,
    );
    await refused(
      /^flags\/checkout\.yaml:17: \/environments\/production\/rules\/0\/conditions\/0\/value: must be string, number or boolean$/,
    );
  });

  it('reads a .json file as JSON: a trailing comma, a key without quotes and a comment are refused at their line', async () => {
    const json = JSON.stringify({ key: 'banner', tags: ['web'] }, null, 2);
    await writeFile(join(dir, 'flags/banner.json'), json.replace('"web"', '"web",'));
    await refused(/^flags\/banner\.json:4: not valid JSON: a trailing comma before "\]"$/);
    await writeFile(join(dir, 'flags/banner.json'), json.replace('"key"', 'key'));
    await refused(/^flags\/banner\.json:2: not valid JSON: a key must be in double quotes$/);
    // YAML would read the comment as part of a field's name.
    await writeFile(join(dir, 'flags/banner.json'), json.replace('{', '{\n  // the banner'));
    await refused(/^flags\/banner\.json:2: not valid JSON: comments are not allowed in JSON$/);
  });

  it('reports a quote or bracket never closed at the line that opens it', async () => {
    await writeFile(
      join(dir, 'flags/checkout.yaml'),
      FLAG.replace('key: checkout', 'key: checkout\nname: "Checkout'),
    );
    await refused(/^flags\/checkout\.yaml:2: a string opened with " here is never closed$/);
    await writeFile(
      join(dir, 'flags/checkout.yaml'),
      FLAG.replace('key: checkout', 'key: checkout\ntags: [web, shop'),
    );
    await refused(/^flags\/checkout\.yaml:2: the "\[" opened here is never closed with "\]"$/);
  });

  it('lists every problem of a folder at once', async () => {
    await writeFile(
      join(dir, 'flags/checkout.yaml'),
      FLAG.replace('defaultVariant: old', 'defaultVariant: blue'),
    );
    await writeFile(join(dir, 'segments/staff.yaml'), 'key: staff\nmatch: most\n');
    const plan = await cli(server, 'plan', dir);
    expect(plan.err).toContain('segments/staff.yaml:2: /match: must be one of "all", "any"');
    expect(plan.code).toBe(1);
    expect(await readFile(join(dir, 'segments/staff.yaml'), 'utf8')).toContain('most');
  });
});

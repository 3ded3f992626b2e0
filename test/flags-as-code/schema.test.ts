import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FILES_SCHEMA_PATH, projectFilesSchema } from '../../src/domain/schemas/project-files.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cli, tempFolder } from './support.ts';

const COMMITTED = new URL('../../docs/schema/flagstaff-files.schema.json', import.meta.url);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('the committed schema is the one generated from the request-body schemas (npx node scripts/files-schema.ts)', async () => {
  expect(JSON.parse(await readFile(COMMITTED, 'utf8'))).toEqual(projectFilesSchema());
});

it('serves the schema without a key, as JSON Schema', async () => {
  const answer = await server.call('GET', FILES_SCHEMA_PATH, { key: null });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/schema\+json/);
  expect(answer.body).toEqual(projectFilesSchema());
});

it('pulled files validate against the published schema, which refuses a misspelt field', async () => {
  await server.call('POST', '/v1/projects', { body: { key: 'shop' } });
  await server.call('POST', '/v1/projects/shop/segments', { body: { key: 'beta', included: ['ann'] } });
  await server.call('POST', '/v1/projects/shop/flags', { body: { key: 'checkout', tags: ['web'] } });
  const { dir, remove } = await tempFolder();
  try {
    expect((await cli(server, 'pull', dir, ['--project', 'shop'])).code).toBe(0);
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormats as unknown as (ajv: Ajv) => void)(ajv);
    const validate = ajv.compile((await server.call('GET', FILES_SCHEMA_PATH, { key: null })).body);
    for (const file of ['project.yaml', 'segments/beta.yaml', 'flags/checkout.yaml']) {
      const text = await readFile(join(dir, file), 'utf8');
      expect(text).toMatch(
        new RegExp(`^# yaml-language-server: \\$schema=${server.url}${FILES_SCHEMA_PATH}\\n`),
      );
      expect(validate(parse(text)), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ key: 'checkout', enviroments: {} })).toBe(false);
  } finally {
    await remove();
  }
});

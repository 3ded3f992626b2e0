import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';

// PostgreSQL cannot store U+0000 in text, so the API refuses it in every string it takes, the
// same on both databases: a 400 naming the field, and nothing written (docs/errors.md).

const NUL = '\u0000';
const REFUSED = 'must not contain the NUL character (\\u0000)';

describeEachDatabase('the NUL character in what the API takes', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(database);
  });
  afterAll(() => server.close());

  it('refuses a flag description holding NUL with a problem naming the field, and creates nothing', async () => {
    const answer = await server.call('POST', '/v1/projects/default/flags', {
      body: { key: 'nul-flag', description: `a${NUL}b` },
    });
    expectValidationFailed(answer, { path: '/description', message: REFUSED });
    expect((await server.call('GET', '/v1/projects/default/flags/nul-flag')).status).toBe(404);
  });

  it('names the element of a list and the key of an object that hold NUL', async () => {
    const segment = await server.call('POST', '/v1/projects/default/segments', {
      body: { key: 'nul-segment', included: ['ann', `b${NUL}b`] },
    });
    expectValidationFailed(segment, { path: '/included/1', message: REFUSED });
    const flag = await server.call('POST', '/v1/projects/default/flags', {
      body: { key: 'nul-metadata', metadata: { [`te${NUL}am`]: 'x' } },
    });
    expectValidationFailed(flag, { path: '/metadata', message: `a field name ${REFUSED}` });
    expect((await server.call('GET', '/v1/projects/default/segments/nul-segment')).status).toBe(404);
  });

  it('refuses NUL in an update and keeps the stored value', async () => {
    const created = await server.call('POST', '/v1/projects/default/segments', {
      body: { key: 'kept', description: 'before' },
    });
    expect(created.status).toBe(201);
    const answer = await server.call('PATCH', `/v1/segments/${created.body.id}`, {
      body: { description: `after${NUL}` },
    });
    expectValidationFailed(answer, { path: '/description', message: REFUSED });
    const read = await server.call('GET', `/v1/segments/${created.body.id}`);
    expect(read.body).toMatchObject({ description: 'before', version: 1 });
  });

  it('refuses NUL in an invitation email', async () => {
    const answer = await server.call('POST', '/v1/invitations', {
      body: { email: `ann${NUL}@example.com`, role: 'viewer', project: 'default' },
    });
    expectValidationFailed(answer, { path: '/email', message: REFUSED });
  });

  it.each([
    ['/v1/segments/seg_%00x', 'params:/segmentId'],
    ['/v1/projects/default/flags?q=a%00', 'querystring:/q'],
    // Looked up before validation, to authorise: refused before that lookup.
    ['/v1/projects/def%00ault/flags', 'params:/projectId'],
    ['/v1/flags/banner?project=def%00ault', 'querystring:/project'],
  ])('refuses NUL in a path or query parameter: GET %s names %s', async (url, path) => {
    expectValidationFailed(await server.call('GET', url), { path, message: REFUSED });
  });

  it('refuses NUL in a SCIM user with a SCIM error, and provisions nobody', async () => {
    const before = (await server.call('GET', '/scim/v2/Users')).body.totalResults;
    const answer = await server.call('POST', '/scim/v2/Users', {
      headers: { 'content-type': 'application/scim+json' },
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `ann${NUL}@example.com` },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    const listed = await server.call('GET', '/scim/v2/Users');
    expect(listed.body.totalResults).toBe(before);
  });

  it('refuses NUL in an OFREP evaluation context with an OFREP error', async () => {
    const answer = await server.call('POST', '/ofrep/v1/evaluate/flags/anything', {
      headers: { 'x-flagstaff-project': 'default', 'x-flagstaff-environment': 'production' },
      body: { context: { targetingKey: `u${NUL}1` } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errorCode).toBe('INVALID_CONTEXT');
    expect(answer.body.errorDetails).toContain('/context/targetingKey');
  });

  it('takes the text "\\u0000" (a backslash, not NUL) as it is', async () => {
    const answer = await server.call('POST', '/v1/projects/default/flags', {
      body: { key: 'escaped', description: 'written as \\u0000' },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.description).toBe('written as \\u0000');
  });
});

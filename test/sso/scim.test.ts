import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN_EMAIL,
  ADMIN_KEY,
  type CallOptions,
  type DashboardServer,
  inviteAndJoin,
  type Reply,
  startDashboardServer,
} from '../dashboard/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { ERROR, PATCH, scimRequest, USER } from './scim-support.ts';

describeEachDatabase('SCIM 2.0 provisioning at /scim/v2/Users', (database) => {
  let server: DashboardServer;
  let admin: string;
  const scim = (method: string, path: string, body?: unknown, options?: CallOptions): Promise<Reply> =>
    scimRequest(server, method, path, body, options);

  beforeAll(async () => {
    server = await startDashboardServer({ database });
    admin = await server.signIn();
  });
  afterAll(() => server?.close());

  it('creates, lists, filters, deactivates and deletes a user, each change in the audit log', async () => {
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'Grace.Hopper@example.com',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ value: 'grace.hopper@example.com', primary: true }],
      externalId: 'okta-00u1',
      active: true,
      locale: 'en-US',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(created.body).toMatchObject({
      schemas: [USER],
      userName: 'grace.hopper@example.com',
      displayName: 'Grace Hopper',
      externalId: 'okta-00u1',
      active: true,
      meta: { resourceType: 'User' },
    });
    const id: string = created.body.id;
    expect(created.headers.get('location')).toBe(`${server.url}/scim/v2/Users/${id}`);

    const all = await scim('GET', '/Users?startIndex=1&count=10');
    expect(all.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 2,
      startIndex: 1,
      itemsPerPage: 2,
    });
    const second = await scim('GET', '/Users?startIndex=2&count=1');
    expect(second.body).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1 });

    const filtered = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "grace.hopper@example.com"')}`,
    );
    expect(filtered.body.totalResults).toBe(1);
    expect(filtered.body.Resources[0].id).toBe(id);
    const nobody = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`,
    );
    expect(nobody.body).toMatchObject({ totalResults: 0, Resources: [] });

    // Entra ID's form: op capitalised, active as a string.
    const deactivated = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect((await scim('GET', `/Users/${id}`)).body.active).toBe(false);

    expect((await scim('DELETE', `/Users/${id}`)).status).toBe(204);
    const gone = await scim('GET', `/Users/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ schemas: [ERROR], status: '404' });

    const audit = await server.call('GET', `/v1/audit-log?resourceType=account&limit=50`, { cookie: admin });
    const actions = audit.body
      .filter((event: { resource: { id: string } }) => event.resource.id === id)
      .map((event: { action: string; details?: { via?: string }; actor: { type: string } }) => [
        event.action,
        event.details?.via,
        event.actor.type,
      ]);
    expect(actions).toEqual([
      ['account.deleted', 'scim', 'api_key'],
      ['account.deactivated', 'scim', 'api_key'],
      ['account.created', 'scim', 'api_key'],
    ]);
  });

  it('ends a deactivated person’s open session at once and refuses their sign-in', async () => {
    const person = { name: 'Linus', password: 'a long enough password' };
    const { joined, cookie } = await inviteAndJoin(
      server,
      admin,
      { email: 'linus@example.com', role: 'editor', project: null },
      person,
    );
    expect((await server.call('GET', '/v1/me', { cookie })).status).toBe(200);

    const id: string = joined.body.account.id;
    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(patched.status).toBe(200);

    expect((await server.call('GET', '/v1/me', { cookie })).status).toBe(401);
    const again = await server.call('POST', '/v1/auth/sign-in', {
      body: { email: 'linus@example.com', password: person.password },
    });
    expect(again.status).toBe(403);
    expect(again.body.detail).toMatch(/deactivated/);

    await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    const back = await server.call('POST', '/v1/auth/sign-in', {
      body: { email: 'linus@example.com', password: person.password },
    });
    expect(back.status).toBe(200);
  });

  it('replaces a user with PUT and refuses a userName another account has', async () => {
    const created = await scim('POST', '/Users', { schemas: [USER], userName: 'ken@example.com' });
    const id: string = created.body.id;
    const replaced = await scim('PUT', `/Users/${id}`, {
      schemas: [USER],
      userName: 'ken.thompson@example.com',
      displayName: 'Ken Thompson',
      active: true,
    });
    expect(replaced.body).toMatchObject({
      userName: 'ken.thompson@example.com',
      displayName: 'Ken Thompson',
    });

    const taken = await scim('POST', '/Users', { schemas: [USER], userName: 'KEN.thompson@example.com' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ schemas: [ERROR], status: '409', scimType: 'uniqueness' });
  });

  it('answers bad requests with SCIM errors', async () => {
    const noName = await scim('POST', '/Users', { schemas: [USER], displayName: 'Nobody' });
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidValue' });

    const filter = await scim('GET', `/Users?filter=${encodeURIComponent('emails co "x"')}`);
    expect(filter.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });

    const op = await scim('PATCH', '/Users/acc_x', { schemas: [PATCH], Operations: [{ op: 'move' }] });
    expect(op.body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
  });

  it('answers a filter that is not a JSON string with 400 invalidFilter, and finds people by externalId', async () => {
    for (const filter of [
      'userName eq "\\q"',
      'userName eq "\\u12"',
      'userName eq "a\nb"',
      'userName eq "a',
    ]) {
      const refused = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(refused.status, filter).toBe(400);
      expect(refused.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
    }
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'dennis@example.com',
      externalId: 'okta-"00u2"',
    });
    const escaped = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "dennis\\u0040example.com"')}`,
    );
    expect(escaped.body.Resources.map((user: { id: string }) => user.id)).toEqual([created.body.id]);
    const byExternalId = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('externalId eq "okta-\\"00u2\\""')}`,
    );
    expect(byExternalId.body).toMatchObject({
      totalResults: 1,
      Resources: [{ userName: 'dennis@example.com' }],
    });
    expect((await scim('DELETE', `/Users/${created.body.id}`)).status).toBe(204);
  });

  it('refuses strings longer than the API takes anywhere, and creates or changes nothing', async () => {
    const before = (await scim('GET', '/Users')).body.totalResults;
    const tooLong: [string, Record<string, unknown>][] = [
      ['userName', { userName: `${'a'.repeat(10_000)}@example.com` }],
      ['displayName', { userName: 'long@example.com', displayName: 'n'.repeat(201) }],
      ['name.givenName', { userName: 'long@example.com', name: { givenName: 'g'.repeat(201) } }],
      ['externalId', { userName: 'long@example.com', externalId: 'x'.repeat(257) }],
      ['emails.value', { emails: [{ value: `${'e'.repeat(320)}@example.com`, primary: true }] }],
    ];
    for (const [attribute, user] of tooLong) {
      const refused = await scim('POST', '/Users', { schemas: [USER], ...user });
      expect(refused.status, attribute).toBe(400);
      expect(refused.body).toMatchObject({ schemas: [ERROR], scimType: 'invalidValue' });
      expect(refused.body.detail).toContain(`${attribute} is longer than`);
    }
    expect((await scim('GET', '/Users')).body.totalResults).toBe(before);
    const ada = await server.store.findAccountByEmail(ADMIN_EMAIL);
    const patched = await scim('PATCH', `/Users/${ada?.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'displayName', value: 'd'.repeat(10_010) }],
    });
    expect(patched.status).toBe(400);
    expect((await server.store.findAccountByEmail(ADMIN_EMAIL))?.name).toBe(ada?.name);
  });

  it('keeps one active organisation admin: the last cannot be deactivated, and a deactivated one does not count', async () => {
    const ada = (await server.store.findAccountByEmail(ADMIN_EMAIL))?.id as string;
    const deactivate = (id: string) =>
      scim('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      });
    const last = await deactivate(ada);
    expect(last.status).toBe(409);
    expect(last.body).toMatchObject({ schemas: [ERROR], status: '409' });
    expect(last.body.detail).toMatch(/last organisation-wide admin/);

    const { joined } = await inviteAndJoin(
      server,
      admin,
      { email: 'second.admin@example.com', role: 'admin', project: null },
      { name: 'Second', password: 'a long enough password' },
    );
    const second: string = joined.body.account.id;
    expect((await deactivate(second)).status).toBe(200);
    // The deactivated admin cannot sign in: Ada is the last one who can, whichever way she would go.
    expect((await deactivate(ada)).status).toBe(409);
    expect((await scim('DELETE', `/Users/${ada}`)).status).toBe(409);
    const demoted = await server.call('PATCH', `/v1/accounts/${ada}`, {
      key: ADMIN_KEY,
      body: { role: 'editor' },
    });
    expect(demoted.status).toBe(409);
    expect(await server.store.findAccountById(ada)).toMatchObject({ role: 'admin', active: true });
    expect((await scim('DELETE', `/Users/${second}`)).status).toBe(204);
  });

  it('takes only an organisation-wide admin API key', async () => {
    const none = await scim('GET', '/Users', undefined, { key: '' });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ schemas: [ERROR], status: '401' });
    expect(none.headers.get('content-type')).toMatch(/^application\/scim\+json/);

    const keyOf = async (path: string, body: unknown) =>
      (await server.call('POST', path, { cookie: admin, body })).body.secret as string;
    const viewer = await keyOf('/v1/api-keys', { name: 'viewer', role: 'viewer' });
    const projectAdmin = await keyOf('/v1/projects/default/api-keys', {
      name: 'project admin',
      role: 'admin',
    });
    const someEnvironments = await keyOf('/v1/api-keys', {
      name: 'production admin',
      role: 'admin',
      environments: ['production'],
    });
    for (const key of [viewer, projectAdmin, someEnvironments]) {
      const refused = await scim('GET', '/Users', undefined, { key });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ schemas: [ERROR], status: '403' });
    }
    const bySession = await scim('GET', '/Users', undefined, { key: '', cookie: admin });
    expect(bySession.status).toBe(403);
  });
});

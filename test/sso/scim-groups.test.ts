import { expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_KEY, type CallOptions, cookiePair, type Reply } from '../dashboard/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { ERROR, GROUP, LIST, PATCH, scimRequest, USER } from './scim-support.ts';
import { useSsoDashboard } from './sso-dashboard.ts';

describeEachDatabase('SCIM 2.0 groups at /scim/v2/Groups, mapped to roles', (database) => {
  const sso = useSsoDashboard(database, 'flag-admins=admin,shop-devs=editor:default,support=viewer');
  const scim = (method: string, path: string, body?: unknown, options?: CallOptions): Promise<Reply> =>
    scimRequest(sso.server, method, path, body, options);
  const user = async (userName: string, externalId?: string): Promise<string> => {
    const made = await scim('POST', '/Users', {
      schemas: [USER],
      userName,
      ...(externalId ? { externalId } : {}),
    });
    expect(made.status).toBe(201);
    return made.body.id;
  };
  const group = async (displayName: string, members: string[]): Promise<string> => {
    const made = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName,
      members: members.map((value) => ({ value })),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.id;
  };
  const patch = (id: string, ...Operations: unknown[]) =>
    scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations });
  const roleOf = async (id: string) => {
    const account = await sso.server.store.findAccountById(id);
    return `${account?.role} ${account?.projectId === null ? 'organisation' : 'project'}`;
  };

  it('creates, finds, changes and deletes a group in the forms Okta and Entra ID send, each in the audit log', async () => {
    const [grace, linus] = [await user('grace@example.com'), await user('linus@example.com')];
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Engineering',
      externalId: 'okta-g1',
      members: [{ value: grace, display: 'Grace' }],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const id: string = created.body.id;
    expect(created.headers.get('location')).toBe(`${sso.server.url}/scim/v2/Groups/${id}`);
    expect(created.body).toMatchObject({
      schemas: [GROUP],
      displayName: 'Engineering',
      externalId: 'okta-g1',
      members: [{ value: grace, $ref: `${sso.server.url}/scim/v2/Users/${grace}` }],
      meta: { resourceType: 'Group', version: 'W/"1"' },
    });

    const filtered = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent('displayName eq "Engineering"')}`,
    );
    expect(filtered.body).toMatchObject({ schemas: [LIST], totalResults: 1, Resources: [{ id }] });
    const lean = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent('externalId eq "okta-g1"')}&excludedAttributes=members`,
    );
    expect(lean.body.Resources[0].id).toBe(id);
    expect(lean.body.Resources[0]).not.toHaveProperty('members');
    expect(
      (await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "engineering"')}`)).body
        .totalResults,
    ).toBe(0);

    // Okta: add; Entra ID: op capitalised, remove by filter; either: rename without a path.
    expect(
      (await patch(id, { op: 'add', path: 'members', value: [{ value: linus }] })).body.members,
    ).toHaveLength(2);
    const removed = await patch(id, { op: 'Remove', path: `members[value eq "${grace}"]` });
    expect(removed.body.members.map((m: { value: string }) => m.value)).toEqual([linus]);
    const renamed = await patch(id, { op: 'replace', value: { id, displayName: 'Platform' } });
    expect(renamed.body).toMatchObject({ displayName: 'Platform', meta: { version: 'W/"4"' } });
    const replaced = await scim('PUT', `/Groups/${id}`, {
      schemas: [GROUP],
      displayName: 'Platform',
      members: [{ value: grace }, { value: linus }],
    });
    expect(replaced.body.members).toHaveLength(2);
    expect(replaced.body).not.toHaveProperty('externalId');
    expect((await scim('GET', `/Groups/${id}`)).body.members).toHaveLength(2);

    const taken = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Platform' });
    expect(taken.body).toMatchObject({ schemas: [ERROR], status: '409', scimType: 'uniqueness' });
    const stranger = await patch(id, { op: 'add', path: 'members', value: [{ value: 'acc_nobody' }] });
    expect(stranger.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    const tooLong = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'g'.repeat(201) });
    expect(tooLong.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    const badFilter = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "\\q"')}`);
    expect(badFilter.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    const badOp = await patch(id, { op: 'move', path: 'members' });
    expect(badOp.body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });

    expect((await scim('DELETE', `/Groups/${id}`)).status).toBe(204);
    expect((await scim('GET', `/Groups/${id}`)).body).toMatchObject({ schemas: [ERROR], status: '404' });
    const audit = await sso.server.call('GET', `/v1/audit-log?resourceId=${id}&limit=20`, { key: ADMIN_KEY });
    expect(
      audit.body.map((e: { action: string; details: { via: string } }) => [e.action, e.details.via]),
    ).toEqual([
      ['group.deleted', 'scim'],
      ...Array(4).fill(['group.updated', 'scim']),
      ['group.created', 'scim'],
    ]);
  });

  it('gives members the role their groups map to at once, as the roles claim does, and ends the access of one no group lets in', async () => {
    const eve = await user('eve@example.com', 'eve-subject');
    const support = await group('support', [eve]);
    expect(await roleOf(eve)).toBe('viewer organisation');
    const admins = await group('flag-admins', []);
    await patch(admins, { op: 'add', path: 'members', value: [{ value: eve }] });
    expect(await roleOf(eve)).toBe('admin organisation');
    await patch(admins, { op: 'remove', path: 'members', value: [{ value: eve }] });
    expect(await roleOf(eve)).toBe('viewer organisation');

    // Her ID token still says flag-admins, but that group is pushed over SCIM and she is not in it.
    const login = await fetch(`${sso.server.url}/v1/auth/oidc/login`, { redirect: 'manual' });
    const location = new URL(login.headers.get('location') ?? '');
    sso.forging.nonce = location.searchParams.get('nonce') ?? '';
    sso.forging.claims = { sub: 'eve-subject', email: 'eve@example.com', groups: ['flag-admins'] };
    const callback = await fetch(
      `${sso.server.url}/v1/auth/oidc/callback?code=c1&state=${location.searchParams.get('state')}`,
      {
        redirect: 'manual',
        headers: { cookie: cookiePair(login.headers) },
      },
    );
    expect(callback.status).toBe(302);
    const cookie = (
      callback.headers.getSetCookie().find((c) => c.startsWith('flagstaff_session=')) ?? ''
    ).split(';')[0];
    expect((await sso.server.call('GET', '/v1/me', { cookie })).body.account).toMatchObject({
      role: 'viewer',
    });

    await patch(support, { op: 'replace', path: 'members', value: [] });
    expect(await roleOf(eve)).toBe('evaluator organisation');
    expect((await sso.server.call('GET', '/v1/me', { cookie })).status).toBe(401);
    const audit = await sso.server.call('GET', `/v1/audit-log?resourceId=${eve}&limit=1`, { key: ADMIN_KEY });
    expect(audit.body[0]).toMatchObject({
      action: 'account.access_revoked',
      actor: { type: 'api_key' },
      details: { via: 'scim', group: 'support', sessionsEnded: 1 },
    });

    const devs = await group('shop-devs', [eve]);
    expect(await roleOf(eve)).toBe('editor project');
    expect((await scim('DELETE', `/Groups/${devs}`)).status).toBe(204);
    expect(await roleOf(eve)).toBe('evaluator organisation');
  });

  it('keeps the last active organisation admin one: a group that would demote her is refused whole', async () => {
    const ada = (await sso.server.store.findAccountByEmail(ADMIN_EMAIL))?.id as string;
    const refused = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'viewers-of-ada',
      members: [],
    });
    const id: string = refused.body.id;
    // Not mapped: a group whose name maps to nothing changes nobody's role... until it is renamed to one that does.
    expect((await patch(id, { op: 'add', path: 'members', value: [{ value: ada }] })).status).toBe(200);
    expect(await roleOf(ada)).toBe('admin organisation');
    const demoting = await patch(id, { op: 'replace', path: 'displayName', value: 'shop-devs' });
    expect(demoting.status).toBe(409);
    expect(demoting.body.detail).toMatch(/last organisation-wide admin/);
    expect((await scim('GET', `/Groups/${id}`)).body.displayName).toBe('viewers-of-ada');
    expect(await roleOf(ada)).toBe('admin organisation');
  });

  it('describes its schemas and resource types to anyone (RFC 7644 §4)', async () => {
    const schemas = await scim('GET', '/Schemas', undefined, { key: '' });
    expect(schemas.status).toBe(200);
    expect(schemas.body).toMatchObject({ schemas: [LIST], totalResults: 2 });
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([USER, GROUP]);
    const userSchema = await scim('GET', `/Schemas/${USER}`, undefined, { key: '' });
    expect(userSchema.body.attributes.find((a: { name: string }) => a.name === 'userName')).toMatchObject({
      type: 'string',
      required: true,
      uniqueness: 'server',
      multiValued: false,
    });
    const types = await scim('GET', '/ResourceTypes', undefined, { key: '' });
    expect(
      types.body.Resources.map((t: { id: string; endpoint: string; schema: string }) => [
        t.id,
        t.endpoint,
        t.schema,
      ]),
    ).toEqual([
      ['User', '/Users', USER],
      ['Group', '/Groups', GROUP],
    ]);
    expect((await scim('GET', '/ResourceTypes/Group', undefined, { key: '' })).body.endpoint).toBe('/Groups');
    expect((await scim('GET', '/ResourceTypes/Role', undefined, { key: '' })).body).toMatchObject({
      schemas: [ERROR],
      status: '404',
    });
  });

  it('takes only an organisation-wide admin API key on every group route', async () => {
    const viewer = (
      await sso.server.call('POST', '/v1/api-keys', {
        key: ADMIN_KEY,
        body: { name: 'viewer', role: 'viewer' },
      })
    ).body.secret as string;
    const production = (
      await sso.server.call('POST', '/v1/api-keys', {
        key: ADMIN_KEY,
        body: { name: 'production admin', role: 'admin', environments: ['production'] },
      })
    ).body.secret as string;
    const admin = (await sso.server.signIn()) as string;
    const id = await group('guarded', []);
    const routes: [string, string, unknown?][] = [
      ['GET', '/Groups'],
      ['GET', `/Groups/${id}`],
      ['POST', '/Groups', { schemas: [GROUP], displayName: 'sneaky' }],
      ['PUT', `/Groups/${id}`, { schemas: [GROUP], displayName: 'sneaky' }],
      [
        'PATCH',
        `/Groups/${id}`,
        { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'sneaky' }] },
      ],
      ['DELETE', `/Groups/${id}`],
    ];
    for (const [method, path, body] of routes) {
      expect((await scim(method, path, body, { key: '' })).status, `${method} ${path} with no key`).toBe(401);
      for (const key of [viewer, production]) {
        expect((await scim(method, path, body, { key })).body, `${method} ${path}`).toMatchObject({
          schemas: [ERROR],
          status: '403',
        });
      }
      expect(
        (await scim(method, path, body, { key: '', cookie: admin })).status,
        `${method} ${path} by session`,
      ).toBe(403);
    }
    expect((await scim('GET', `/Groups/${id}`)).body.displayName).toBe('guarded');
  });
});

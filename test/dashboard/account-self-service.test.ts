import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import {
  ADMIN_KEY,
  cookiePair,
  type DashboardServer,
  inviteAndJoin,
  startDashboardServer,
} from './support.ts';

/** Decisions 1004–1006: passwords, role and scope changes, reset links, the organisation's audit log. */
describeEachDatabase('account self-service', (database) => {
  let server: DashboardServer;
  let admin: string;
  let counter = 0;
  beforeAll(async () => {
    server = await startDashboardServer({ database });
    admin = await server.signIn();
  });
  afterAll(() => server.close());

  /** A new account through an invitation, signed in: its cookie and its account. */
  async function person(role: string, project: string | null = null, password = 'a long enough password') {
    const email = `person${++counter}@example.com`;
    const { invited, joined, cookie } = await inviteAndJoin(
      server,
      admin,
      { email, role, project },
      { name: `Person ${counter}`, password },
    );
    expect(invited.status).toBe(201);
    expect(joined.status).toBe(201);
    return { cookie, account: joined.body.account, email, password };
  }

  const auditOf = async (accountId: string) =>
    (
      await server.call('GET', `/v1/audit-log?resourceType=account&resourceId=${accountId}`, {
        cookie: admin,
      })
    ).body;

  describe('changing your own password', () => {
    it('needs the current password, keeps this session and ends the others', async () => {
      const me = await person('editor');
      const elsewhere = await server.signIn(me.email, me.password);

      const changePassword = (currentPassword: string, newPassword: string) =>
        server.call('POST', '/v1/me/password', { cookie: me.cookie, body: { currentPassword, newPassword } });

      const wrong = await changePassword('not the password', 'a brand new password');
      expect(wrong.status).toBe(400);
      expect(wrong.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(wrong.body.errors).toEqual([
        { path: '/currentPassword', message: 'is not your current password' },
      ]);

      const short = await changePassword(me.password, 'short');
      expect(short.status).toBe(400);
      expect(short.body.errors).toEqual([
        { path: '/newPassword', message: 'must be at least 12 characters' },
      ]);

      const changed = await changePassword(me.password, 'a brand new password');
      expect(changed.status).toBe(204);
      expect((await server.call('GET', '/v1/me', { cookie: me.cookie })).status).toBe(200);
      expect((await server.call('GET', '/v1/me', { cookie: elsewhere })).status).toBe(401);

      const old = await server.call('POST', '/v1/auth/sign-in', {
        body: { email: me.email, password: me.password },
      });
      expect(old.status).toBe(401);
      await server.signIn(me.email, 'a brand new password');

      const [event] = await auditOf(me.account.id);
      expect(event).toMatchObject({
        action: 'account.password_changed',
        actor: { type: 'user', id: me.account.id },
        details: { sessionsEnded: 1 },
      });
      expect(JSON.stringify(event)).not.toMatch(/brand new|scrypt/);
    });

    it('is refused to API keys and answers bad bodies with problem+json', async () => {
      const byKey = await server.call('POST', '/v1/me/password', {
        key: ADMIN_KEY,
        body: { currentPassword: 'x', newPassword: 'a brand new password' },
      });
      expect(byKey.status).toBe(403);
      for (const body of [
        {},
        { currentPassword: 1, newPassword: 2 },
        { currentPassword: 'a', newPassword: 'b', x: 1 },
      ]) {
        const res = await server.call('POST', '/v1/me/password', { cookie: admin, body });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      }
    });
  });

  describe("changing an account's role and scope", () => {
    it('takes effect on the very next request of its sessions: a demoted admin gets 403', async () => {
      const al = await person('admin');
      expect((await server.call('GET', '/v1/accounts', { cookie: al.cookie })).status).toBe(200);

      const stale = await server.call('PATCH', `/v1/accounts/${al.account.id}`, {
        cookie: admin,
        body: { role: 'viewer' },
        headers: { 'if-match': `"${al.account.version + 5}"` },
      });
      expect(stale.status).toBe(412);

      const demoted = await server.call('PATCH', `/v1/accounts/${al.account.id}`, {
        cookie: admin,
        body: { role: 'viewer' },
        headers: { 'if-match': `"${al.account.version}"` },
      });
      expect(demoted.status).toBe(200);
      expect(demoted.body).toMatchObject({
        role: 'viewer',
        projectId: null,
        version: al.account.version + 1,
      });
      expect(demoted.headers.get('etag')).toBe(`"${al.account.version + 1}"`);

      const next = await server.call('GET', '/v1/accounts', { cookie: al.cookie });
      expect(next.status).toBe(403);
      expect(next.body.code).toBe('forbidden');
      expect((await server.call('GET', '/v1/projects', { cookie: al.cookie })).status).toBe(200);

      const [event] = await auditOf(al.account.id);
      expect(event).toMatchObject({
        action: 'account.updated',
        before: { role: 'admin' },
        after: { role: 'viewer' },
      });
    });

    it("a removed account's session gets 401 on its next request", async () => {
      const gone = await person('editor');
      expect((await server.call('GET', '/v1/projects', { cookie: gone.cookie })).status).toBe(200);
      await server.call('DELETE', `/v1/accounts/${gone.account.id}`, { cookie: admin });
      expect((await server.call('GET', '/v1/projects', { cookie: gone.cookie })).status).toBe(401);
    });

    it('moves an account into a project, which then bounds what it sees', async () => {
      const moved = await person('editor');
      await server.call('POST', '/v1/projects', { cookie: admin, body: { key: 'elsewhere' } });
      const res = await server.call('PATCH', `/v1/accounts/${moved.account.id}`, {
        cookie: admin,
        body: { project: 'default' },
      });
      expect(res.status).toBe(200);
      expect(
        (await server.call('GET', '/v1/projects/elsewhere/flags', { cookie: moved.cookie })).status,
      ).toBe(403);
      expect((await server.call('GET', '/v1/projects/default/flags', { cookie: moved.cookie })).status).toBe(
        200,
      );
    });

    it('keeps a project admin inside the project', async () => {
      const pam = await person('admin', 'default');
      const member = await person('viewer', 'default');
      const wide = await server.call('PATCH', `/v1/accounts/${member.account.id}`, {
        cookie: pam.cookie,
        body: { project: null },
      });
      expect(wide.status).toBe(403);
      const promote = await server.call('PATCH', `/v1/accounts/${member.account.id}`, {
        cookie: pam.cookie,
        body: { role: 'editor' },
      });
      expect(promote.status).toBe(200);
      const me = await server.call('GET', '/v1/me', { cookie: admin });
      const organisationAdmin = await server.call('PATCH', `/v1/accounts/${me.body.account.id}`, {
        cookie: pam.cookie,
        body: { role: 'viewer' },
      });
      expect(organisationAdmin.status).toBe(403);
    });

    it('refuses to leave the organisation without an organisation admin (409)', async () => {
      const me = await server.call('GET', '/v1/me', { cookie: admin });
      // Other organisation admins made by earlier tests are demoted first.
      const accounts = await server.call('GET', '/v1/accounts?limit=1000', { cookie: admin });
      for (const a of accounts.body)
        if (a.role === 'admin' && a.projectId === null && a.id !== me.body.account.id)
          await server.call('PATCH', `/v1/accounts/${a.id}`, { cookie: admin, body: { role: 'editor' } });
      for (const body of [{ role: 'editor' }, { project: 'default' }]) {
        const res = await server.call('PATCH', `/v1/accounts/${me.body.account.id}`, { cookie: admin, body });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('conflict');
      }
      const second = await person('admin');
      const now = await server.call('PATCH', `/v1/accounts/${me.body.account.id}`, {
        key: ADMIN_KEY,
        body: { role: 'editor' },
      });
      expect(now.status).toBe(200);
      // And back, by the other admin, so the following tests keep their admin.
      const back = await server.call('PATCH', `/v1/accounts/${me.body.account.id}`, {
        cookie: second.cookie,
        body: { role: 'admin' },
      });
      expect(back.status).toBe(200);
    });

    it('answers bad input with problem+json, never 500', async () => {
      const someone = await person('viewer');
      const url = `/v1/accounts/${someone.account.id}`;
      const cases: [unknown, Record<string, string>, number][] = [
        [{ role: 'owner' }, {}, 400],
        [{ project: '' }, {}, 400],
        [{ bogus: true }, {}, 400],
        [[1, 2], {}, 400],
        [{ project: 'no-such-project' }, {}, 404],
        [{ role: 'viewer' }, { 'if-match': 'yesterday' }, 412],
      ];
      for (const [body, headers, status] of cases) {
        const res = await server.call('PATCH', url, { cookie: admin, body, headers });
        expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
        expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      }
      const unknown = await server.call('PATCH', '/v1/accounts/acc_nobody', { cookie: admin, body: {} });
      expect(unknown.status).toBe(404);
    });
  });

  describe('one-time password reset links', () => {
    it('sets a new password once, ends every session of the account, and signs in', async () => {
      const ren = await person('editor');
      const first = await server.call('POST', `/v1/accounts/${ren.account.id}/password-reset`, {
        cookie: admin,
      });
      expect(first.status).toBe(201);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(first.body.token).toMatch(/^fsr_[\w-]{43}$/);
      expect(first.body.path).toBe(`/reset-password#${first.body.token}`);
      expect(Date.parse(first.body.expiresAt) - Date.parse(first.body.createdAt)).toBe(24 * 60 * 60 * 1000);

      // A newer link replaces the earlier one.
      const link = await server.call('POST', `/v1/accounts/${ren.account.id}/password-reset`, {
        cookie: admin,
      });
      const token = link.body.token as string;
      expect(
        (await server.call('POST', '/v1/auth/password-reset', { body: { token: first.body.token } })).status,
      ).toBe(404);

      const preview = await server.call('POST', '/v1/auth/password-reset', { body: { token } });
      expect(preview.body).toMatchObject({ email: ren.email, name: ren.account.name });

      const short = await server.call('POST', '/v1/auth/reset-password', {
        body: { token, password: 'short' },
      });
      expect(short.status).toBe(400);
      expect(short.body.errors).toEqual([{ path: '/password', message: 'must be at least 12 characters' }]);

      const reset = await server.call('POST', '/v1/auth/reset-password', {
        body: { token, password: 'the reset password' },
      });
      expect(reset.status).toBe(200);
      expect(reset.body.account).toMatchObject({ id: ren.account.id });
      const fresh = cookiePair(reset.headers);
      expect((await server.call('GET', '/v1/me', { cookie: fresh })).status).toBe(200);
      expect((await server.call('GET', '/v1/me', { cookie: ren.cookie })).status).toBe(401);
      await server.signIn(ren.email, 'the reset password');

      const again = await server.call('POST', '/v1/auth/reset-password', {
        body: { token, password: 'another password!' },
      });
      expect(again.status).toBe(404);

      const events = await auditOf(ren.account.id);
      expect(events.slice(0, 3).map((e: { action: string }) => e.action)).toEqual([
        'account.password_reset',
        'account.reset_link_created',
        'account.reset_link_created',
      ]);
      expect(events[0]).toMatchObject({
        actor: { type: 'user', id: ren.account.id },
        details: { sessionsEnded: 1 },
      });
      expect(events[1].actor.name).toBe('ada');
      const logged = JSON.stringify(events);
      expect(logged).not.toContain(token);
      expect(logged).not.toContain(first.body.token);
      expect(logged).not.toMatch(/reset password|scrypt|tokenHash/);
    });

    it('is created by admins of the account scope only, and bad tokens are problem+json', async () => {
      const viewer = await person('viewer', 'default');
      const pam = await person('admin', 'default');
      const me = await server.call('GET', '/v1/me', { cookie: admin });
      expect(
        (
          await server.call('POST', `/v1/accounts/${me.body.account.id}/password-reset`, {
            cookie: pam.cookie,
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await server.call('POST', `/v1/accounts/${viewer.account.id}/password-reset`, {
            cookie: pam.cookie,
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await server.call('POST', `/v1/accounts/${pam.account.id}/password-reset`, {
            cookie: viewer.cookie,
          })
        ).status,
      ).toBe(403);
      expect(
        (await server.call('POST', '/v1/accounts/acc_nobody/password-reset', { cookie: admin })).status,
      ).toBe(404);
      for (const body of [{}, { token: '' }, { token: 'x'.repeat(500) }, { token: 'fsr_x', extra: 1 }]) {
        const res = await server.call('POST', '/v1/auth/reset-password', {
          body: { password: 'long enough pw', ...body },
        });
        expect(res.status).toBe(400);
      }
      const unknown = await server.call('POST', '/v1/auth/reset-password', {
        body: { token: 'fsr_unknown', password: 'long enough pw' },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toMatch(/application\/problem\+json/);
    });
  });

  describe("the organisation's audit log", () => {
    it('lists every project, filtered by project, resource and actor; organisation admins only', async () => {
      const other = await server.call('POST', '/v1/projects', { cookie: admin, body: { key: 'audited' } });
      await server.call('POST', '/v1/projects/audited/flags', { key: ADMIN_KEY, body: { key: 'by-key' } });
      await server.call('POST', '/v1/projects/default/flags', { cookie: admin, body: { key: 'by-person' } });
      const me = await server.call('GET', '/v1/me', { cookie: admin });

      const flags = await server.call('GET', '/v1/audit-log?resourceType=flag&limit=1000', { cookie: admin });
      const keys = flags.body.map((e: { resource: { key: string } }) => e.resource.key);
      expect(keys).toEqual(expect.arrayContaining(['by-key', 'by-person']));

      const inAudited = await server.call('GET', '/v1/audit-log?project=audited', { cookie: admin });
      expect(inAudited.body.length).toBeGreaterThan(0);
      expect(inAudited.body.every((e: { projectId: string }) => e.projectId === other.body.id)).toBe(true);
      const byId = await server.call('GET', `/v1/audit-log?project=${other.body.id}`, { cookie: admin });
      expect(byId.body).toEqual(inAudited.body);

      const mine = await server.call('GET', `/v1/audit-log?actorId=${me.body.account.id}&resourceType=flag`, {
        cookie: admin,
      });
      expect(mine.body.map((e: { resource: { key: string } }) => e.resource.key)).toContain('by-person');
      expect(mine.body.map((e: { resource: { key: string } }) => e.resource.key)).not.toContain('by-key');

      // A deleted project's events stay, found by its id.
      expect((await server.call('DELETE', '/v1/projects/audited', { cookie: admin })).status).toBe(204);
      const deleted = await server.call('GET', `/v1/audit-log?project=${other.body.id}`, { cookie: admin });
      expect(deleted.body.map((e: { resource: { key: string } }) => e.resource.key)).toContain('by-key');

      const paged = await server.call('GET', '/v1/audit-log?limit=2', { cookie: admin });
      expect(paged.body).toHaveLength(2);
      expect(paged.headers.get('link')).toMatch(/rel="next"/);

      const pam = await person('admin', 'default');
      expect((await server.call('GET', '/v1/audit-log', { cookie: pam.cookie })).status).toBe(403);
      for (const query of ['limit=0', 'project=', `actorId=${'x'.repeat(100)}`, 'bogus=1']) {
        const res = await server.call('GET', `/v1/audit-log?${query}`, { cookie: admin });
        expect([query, res.status]).toEqual([query, 400]);
      }
    });
  });
});

describe('password reset links expire', () => {
  let server: DashboardServer;
  let clock = Date.parse('2030-01-01T00:00:00Z');
  beforeAll(async () => {
    server = await startDashboardServer({ sessions: { clock: () => clock } });
  });
  afterAll(() => server.close());

  it('after 24 hours', async () => {
    const admin = await server.signIn();
    const me = await server.call('GET', '/v1/me', { cookie: admin });
    const link = await server.call('POST', `/v1/accounts/${me.body.account.id}/password-reset`, {
      cookie: admin,
    });
    clock += 24 * 60 * 60 * 1000 - 1000;
    const preview = await server.call('POST', '/v1/auth/password-reset', {
      body: { token: link.body.token },
    });
    expect(preview.status).toBe(200);
    clock += 2000;
    const late = await server.call('POST', '/v1/auth/reset-password', {
      body: { token: link.body.token, password: 'too late password' },
    });
    expect(late.status).toBe(404);
    // The first admin (the server's default sign-in) can still sign in.
    await server.signIn();
  });
});

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccounts } from '../../src/services/accounts/account-service.ts';
import { hashPassword, verifyPassword } from '../../src/services/core/passwords.ts';
import { rolloutWeights } from '../support/builders.ts';
import { describeEachDatabase, testDatabases } from '../support/database.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';
import {
  ADMIN_EMAIL,
  ADMIN_KEY,
  ADMIN_PASSWORD,
  cookiePair,
  type DashboardServer,
  inviteAndJoin,
  startDashboardServer,
} from './support.ts';

describe('passwords', () => {
  it('hashes with scrypt and a salt of its own, and verifies only the same password', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', a)).toBe(false);
    expect(await verifyPassword('anything', 'not-a-hash')).toBe(false);
  });
});

describe('the first account', () => {
  it('comes from FLAGSTAFF_ADMIN_EMAIL and FLAGSTAFF_ADMIN_PASSWORD once, and never again', async () => {
    const opened = await testDatabases()[0]!.open();
    try {
      expect(
        await bootstrapAccounts(opened.store, { email: 'Root@Example.com', password: ADMIN_PASSWORD }),
      ).toEqual({
        createdAdmin: 'root@example.com',
      });
      expect(
        await bootstrapAccounts(opened.store, { email: 'other@example.com', password: ADMIN_PASSWORD }),
      ).toEqual({});
      const accounts = await opened.store.listAccounts({}, { limit: 10 });
      expect(accounts.items.map((a) => [a.email, a.role, a.projectId])).toEqual([
        ['root@example.com', 'admin', null],
      ]);
      expect(accounts.items[0]?.passwordHash).toMatch(/^scrypt\$/);
    } finally {
      await opened.close();
    }
  });

  it('or from a one-time setup link issued on the first start only, which makes an organisation admin', async () => {
    const server = await startDashboardServer({ account: false });
    try {
      const first = await bootstrapAccounts(server.store, {});
      expect(first.setupToken).toMatch(/^fsi_/);
      expect(await bootstrapAccounts(server.store, {})).toEqual({});
      const token = first.setupToken as string;

      const preview = await server.call('POST', '/v1/auth/invitation', { body: { token } });
      expect(preview.body).toMatchObject({ email: null, role: 'admin', project: null });
      const joined = await server.call('POST', '/v1/auth/join', {
        body: { token, email: 'Grace@Example.com', name: 'Grace', password: 'a long enough password' },
      });
      expect(joined.status).toBe(201);
      expect(joined.body.account).toMatchObject({
        email: 'grace@example.com',
        role: 'admin',
        projectId: null,
      });
      const me = await server.call('GET', '/v1/me', { cookie: cookiePair(joined.headers) });
      expect(me.body.actor).toMatchObject({ type: 'user', name: 'Grace', role: 'admin', projectId: null });

      const again = await server.call('POST', '/v1/auth/join', {
        body: { token, email: 'eve@example.com', name: 'Eve', password: 'a long enough password' },
      });
      expect(again.status).toBe(404);
      expect(await bootstrapAccounts(server.store, {})).toEqual({});
    } finally {
      await server.close();
    }
  });
});

describeEachDatabase('dashboard accounts and sessions', (database) => {
  let server: DashboardServer;
  let admin: string;
  beforeAll(async () => {
    server = await startDashboardServer({ database });
    admin = await server.signIn();
  });
  afterAll(() => server.close());
  /** `email` invited by the admin as `role` of `project` (null: the organisation), joined as `name`. */
  const join = (email: string, role: string, project: string | null, name: string, password: string) =>
    inviteAndJoin(server, admin, { email, role, project }, { name, password });

  describe('signing in', () => {
    it('sets an HttpOnly, SameSite=Strict session cookie and stores only a hash of its token', async () => {
      const res = await server.call('POST', '/v1/auth/sign-in', {
        body: { email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD },
      });
      expect(res.status).toBe(200);
      expect(res.body.account).toMatchObject({ email: ADMIN_EMAIL, role: 'admin' });
      expect(res.body.account.passwordHash).toBeUndefined();
      const cookie = res.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(
        /^flagstaff_session=[\w-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/,
      );
      expect(res.headers.get('cache-control')).toBe('no-store');
      const token = cookiePair(res.headers).split('=')[1] as string;
      const stored = await server.store.findSessionByHash(createHash('sha256').update(token).digest('hex'));
      expect(stored).toBeDefined();
      expect(JSON.stringify(stored)).not.toContain(token);
    });

    it('marks the cookie Secure when the request came over HTTPS', async () => {
      const res = await server.call('POST', '/v1/auth/sign-in', {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
    });

    it('answers a wrong password and an unknown email alike, with 401', async () => {
      const wrong = await server.call('POST', '/v1/auth/sign-in', {
        body: { email: ADMIN_EMAIL, password: 'not the password' },
      });
      const unknown = await server.call('POST', '/v1/auth/sign-in', {
        body: { email: 'nobody@example.com', password: 'not the password' },
      });
      expect([wrong.status, unknown.status]).toEqual([401, 401]);
      expect(wrong.body.detail).toBe(unknown.body.detail);
      expect(wrong.headers.get('set-cookie')).toBeNull();
    });

    it('refuses a sign-in posted from another site', async () => {
      const res = await server.call('POST', '/v1/auth/sign-in', {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        origin: 'https://evil.example',
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
    });
  });

  describe('a session authenticates the same /v1 API', () => {
    it('reads and writes like an API key of the same role, and the audit log names the person', async () => {
      const flags = await server.call('GET', '/v1/projects/default/flags', { cookie: admin });
      expect(flags.status).toBe(200);
      const created = await server.call('POST', '/v1/projects/default/flags', {
        cookie: admin,
        body: { key: 'from-dashboard' },
      });
      expect(created.status).toBe(201);
      const log = await server.call('GET', `/v1/projects/default/audit-log?resourceId=${created.body.id}`, {
        cookie: admin,
      });
      const me = await server.call('GET', '/v1/me', { cookie: admin });
      expect(log.body[0]).toMatchObject({
        action: 'flag.created',
        actor: { type: 'user', id: me.body.account.id, name: me.body.account.name },
      });
    });

    it('is 401 without a cookie and with an unknown one', async () => {
      expect((await server.call('GET', '/v1/projects')).status).toBe(401);
      const res = await server.call('GET', '/v1/projects', { cookie: 'flagstaff_session=forged' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    });

    it('refuses a state-changing request without Origin, or from another origin, with 403', async () => {
      const body = { key: 'csrf-attempt' };
      const none = await server.call('POST', '/v1/projects/default/flags', {
        cookie: admin,
        body,
        origin: null,
      });
      const evil = await server.call('POST', '/v1/projects/default/flags', {
        cookie: admin,
        body,
        origin: 'https://evil.example',
      });
      expect([none.status, evil.status]).toEqual([403, 403]);
      expect(
        (await server.call('GET', '/v1/projects/default/flags/csrf-attempt', { cookie: admin })).status,
      ).toBe(404);
      // Reading needs no Origin; an API key needs none at all.
      expect((await server.call('GET', '/v1/projects', { cookie: admin, origin: null })).status).toBe(200);
      const byKey = await server.call('POST', '/v1/projects/default/flags', {
        key: ADMIN_KEY,
        body,
        origin: null,
      });
      expect(byKey.status).toBe(201);
    });

    it('ends with sign-out: the cookie is cleared and the session no longer works', async () => {
      const cookie = await server.signIn();
      const out = await server.call('POST', '/v1/auth/sign-out', { cookie });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toMatch(
        /^flagstaff_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/,
      );
      expect((await server.call('GET', '/v1/projects', { cookie })).status).toBe(401);
    });

    it('explains an evaluation: the rule that decided, without changing the evaluation response', async () => {
      await server.call('POST', '/v1/projects/default/segments', {
        cookie: admin,
        body: {
          key: 'dutch',
          rules: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
        },
      });
      const flag = await server.call('POST', '/v1/projects/default/flags', {
        cookie: admin,
        body: { key: 'explained' },
      });
      const patched = await server.call('PATCH', `/v1/flags/${flag.body.id}?environment=production`, {
        cookie: admin,
        body: {
          enabled: true,
          defaultVariant: 'off',
          rules: [{ segments: ['dutch'], serve: { variant: 'on' } }],
        },
      });
      const ruleId = patched.body.environments.production.rules[0].id;
      const explained = await server.call('POST', '/v1/projects/default/flags/explained/explain', {
        cookie: admin,
        body: { environment: 'production', attributes: { targetingKey: 'u1', country: 'NL' } },
      });
      expect(explained.body).toEqual({
        key: 'explained',
        type: 'boolean',
        value: true,
        reason: 'targeting',
        variant: 'on',
        ruleId,
        targetMatched: false,
        failedPrerequisite: null,
        ofrepErrorCode: null,
      });
      // Without a targetingKey a rollout cannot split: OFREP answers TARGETING_KEY_MISSING, and the
      // explanation says so beside the default it serves.
      await server.call('PATCH', `/v1/flags/${flag.body.id}?environment=production`, {
        cookie: admin,
        body: {
          defaultRollout: {
            weights: rolloutWeights({ on: 1, off: 1 }),
          },
        },
      });
      const keyless = await server.call('POST', '/v1/projects/default/flags/explained/explain', {
        cookie: admin,
        body: { environment: 'production', attributes: { country: 'DE' } },
      });
      expect(keyless.body).toMatchObject({ reason: 'default', ofrepErrorCode: 'TARGETING_KEY_MISSING' });
      const plain = await server.call('POST', '/v1/flags/explained/evaluate?project=default', {
        key: ADMIN_KEY,
        body: { environment: 'production', attributes: { targetingKey: 'u1', country: 'NL' } },
      });
      expect(Object.keys(plain.body).sort()).toEqual(['key', 'reason', 'type', 'value', 'variant']);
    });
  });

  describe('invitations and roles', () => {
    it('lets an admin invite a project viewer, who joins once and then may read but not write', async () => {
      const invited = await server.call('POST', '/v1/invitations', {
        cookie: admin,
        body: { email: 'Vic@Example.com', role: 'viewer', project: 'default' },
      });
      expect(invited.status).toBe(201);
      expect(invited.headers.get('cache-control')).toBe('no-store');
      const { token, path } = invited.body;
      expect(path).toBe(`/join#${token}`);
      const pending = await server.call('GET', '/v1/invitations', { cookie: admin });
      expect(pending.body.map((i: { email: string }) => i.email)).toContain('vic@example.com');
      expect(JSON.stringify(pending.body)).not.toContain(token);

      const preview = await server.call('POST', '/v1/auth/invitation', { body: { token } });
      expect(preview.body).toMatchObject({
        email: 'vic@example.com',
        role: 'viewer',
        project: { key: 'default' },
      });
      const short = await server.call('POST', '/v1/auth/join', {
        body: { token, name: 'Vic', password: 'short' },
      });
      expectValidationFailed(short, { path: '/password', message: 'must be at least 12 characters' });
      const joined = await server.call('POST', '/v1/auth/join', {
        body: { token, name: 'Vic', password: 'viewer password 1' },
      });
      expect(joined.status).toBe(201);
      const vic = cookiePair(joined.headers);
      expect(
        (
          await server.call('POST', '/v1/auth/join', {
            body: { token, name: 'X', password: 'viewer password 1' },
          })
        ).status,
      ).toBe(404);

      expect((await server.call('GET', '/v1/projects/default/flags', { cookie: vic })).status).toBe(200);
      const write = await server.call('POST', '/v1/projects/default/flags', {
        cookie: vic,
        body: { key: 'nope' },
      });
      expect(write.status).toBe(403);
      const keys = await server.call('POST', '/v1/projects/default/api-keys', {
        cookie: vic,
        body: { name: 'mine', role: 'evaluator' },
      });
      expect(keys.status).toBe(403);
      expect((await server.call('GET', '/v1/accounts', { cookie: vic })).status).toBe(403);
      const other = await server.call('POST', '/v1/projects', { cookie: admin, body: { key: 'other' } });
      expect(other.status).toBe(201);
      expect((await server.call('GET', '/v1/projects/other/flags', { cookie: vic })).status).toBe(403);
      const projects = await server.call('GET', '/v1/projects', { cookie: vic });
      expect(projects.body.map((p: { key: string }) => p.key)).toEqual(['default']);
    });

    it('keeps a project admin to the project: no organisation-wide invitations, no other projects', async () => {
      const { joined, cookie: pam } = await join(
        'pam@example.com',
        'admin',
        'default',
        'Pam',
        'project admin pw',
      );
      const wide = await server.call('POST', '/v1/invitations', {
        cookie: pam,
        body: { email: 'x@example.com', role: 'viewer', project: null },
      });
      expect(wide.status).toBe(403);
      const elsewhere = await server.call('POST', '/v1/invitations', {
        cookie: pam,
        body: { email: 'x@example.com', role: 'viewer', project: 'other' },
      });
      expect(elsewhere.status).toBe(403);
      const own = await server.call('POST', '/v1/invitations', {
        cookie: pam,
        body: { email: 'x@example.com', role: 'editor', project: 'default' },
      });
      expect(own.status).toBe(201);
      const listed = await server.call('GET', '/v1/accounts', { cookie: pam });
      expect(
        listed.body.every((a: { projectId: string | null }) => a.projectId === joined.body.account.projectId),
      ).toBe(true);
      const key = await server.call('POST', '/v1/projects/default/api-keys', {
        cookie: pam,
        body: { name: 'pam key', role: 'evaluator' },
      });
      expect(key.status).toBe(201);
      expect(
        (await server.call('POST', '/v1/api-keys', { cookie: pam, body: { name: 'org', role: 'viewer' } }))
          .status,
      ).toBe(403);
    });

    it('refuses to invite an email that already has an account', async () => {
      const res = await server.call('POST', '/v1/invitations', {
        cookie: admin,
        body: { email: ADMIN_EMAIL, role: 'viewer', project: null },
      });
      expect(res.status).toBe(409);
    });

    it('removes an account: its sessions end at once; the last organisation admin stays', async () => {
      const { joined, cookie: ed } = await join('ed@example.com', 'editor', null, 'Ed', 'editor password');
      expect((await server.call('GET', '/v1/projects', { cookie: ed })).status).toBe(200);
      const removed = await server.call('DELETE', `/v1/accounts/${joined.body.account.id}`, {
        cookie: admin,
      });
      expect(removed.status).toBe(204);
      expect((await server.call('GET', '/v1/projects', { cookie: ed })).status).toBe(401);
      expect(
        (
          await server.call('POST', '/v1/auth/sign-in', {
            body: { email: 'ed@example.com', password: 'editor password' },
          })
        ).status,
      ).toBe(401);

      const me = await server.call('GET', '/v1/me', { cookie: admin });
      const last = await server.call('DELETE', `/v1/accounts/${me.body.account.id}`, { cookie: admin });
      expect(last.status).toBe(409);
    });

    it('lets an admin withdraw an invitation, after which its link does not work', async () => {
      const invited = await server.call('POST', '/v1/invitations', {
        cookie: admin,
        body: { email: 'late@example.com', role: 'viewer', project: null },
      });
      expect(
        (await server.call('DELETE', `/v1/invitations/${invited.body.id}`, { cookie: admin })).status,
      ).toBe(204);
      const preview = await server.call('POST', '/v1/auth/invitation', {
        body: { token: invited.body.token },
      });
      expect(preview.status).toBe(404);
    });

    it('records invitations and new accounts in the audit log with the person as actor', async () => {
      const { joined } = await join('audited@example.com', 'viewer', 'default', 'Audrey', 'audited password');
      const log = await server.call('GET', '/v1/projects/default/audit-log?resourceType=account', {
        cookie: admin,
      });
      expect(log.body[0]).toMatchObject({
        action: 'account.created',
        actor: { type: 'user', id: joined.body.account.id, name: 'Audrey' },
        resource: { type: 'account', key: 'audited@example.com' },
      });
      expect(JSON.stringify(log.body)).not.toContain('scrypt');
    });
  });
});

describe('sign-in rate limit and session lifetime', () => {
  let server: DashboardServer;
  let clock = Date.parse('2030-01-01T00:00:00Z');
  beforeAll(async () => {
    server = await startDashboardServer({
      sessions: {
        perAccount: { capacity: 3, refillMs: 60_000 },
        perAddress: { capacity: 5, refillMs: 60_000 },
        clock: () => clock,
      },
    });
  });
  afterAll(() => server.close());

  const attempt = (email: string, password: string) =>
    server.call('POST', '/v1/auth/sign-in', { body: { email, password } });

  it('stops an account after its failed attempts, even with the right password, until a token returns', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt(ADMIN_EMAIL, `wrong ${i}`)).status).toBe(401);
    const limited = await attempt(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    clock += 60_000;
    expect((await attempt(ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
  });

  it('stops an address that tries many accounts', async () => {
    // Two of the address's five attempts went above; three more different accounts use it up.
    clock += 10 * 60_000;
    for (let i = 0; i < 5; i++)
      expect((await attempt(`guess${i}@example.com`, 'password guess')).status).toBe(401);
    expect((await attempt('guess9@example.com', 'password guess')).status).toBe(429);
    expect((await attempt(ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(429);
  });

  it('ends a session seven days after sign-in', async () => {
    clock += 60 * 60_000;
    const cookie = await server.signIn();
    expect((await server.call('GET', '/v1/projects', { cookie })).status).toBe(200);
    clock += 7 * 24 * 60 * 60_000;
    expect((await server.call('GET', '/v1/projects', { cookie })).status).toBe(401);
  });
});

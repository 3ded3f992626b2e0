import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { serve } from '../../src/main.ts';
import { hashPassword, UNUSABLE_HASH } from '../../src/services/core/passwords.ts';
import { ADMIN_KEY, cookiePair } from '../dashboard/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startForgingIssuer } from '../support/forging-oidc-issuer.ts';
import { SSO_CLIENT_ID, useSsoDashboard } from './sso-dashboard.ts';

const CLIENT_ID = SSO_CLIENT_ID;
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

/**
 * An account bound to single sign-on lives and ends by its identity provider (decision 1890): it
 * has no password path, and a sign-in the provider vouches for but Flagstaff refuses ends what
 * the account had.
 */
describeEachDatabase('An account bound to single sign-on', (database) => {
  const sso = useSsoDashboard(database, 'flag-admins=admin,support=viewer');

  beforeEach(() => {
    sso.forging.claims = {};
  });

  /** A whole sign-in through the provider with these claims: the callback's answer and the session cookie. */
  async function signInWithSso(claims: Record<string, unknown>) {
    const login = await fetch(`${sso.server.url}/v1/auth/oidc/login`, { redirect: 'manual' });
    const location = new URL(login.headers.get('location') ?? '');
    sso.forging.nonce = location.searchParams.get('nonce') ?? '';
    sso.forging.claims = claims;
    const response = await fetch(
      `${sso.server.url}/v1/auth/oidc/callback?code=c1&state=${location.searchParams.get('state')}`,
      { redirect: 'manual', headers: { cookie: cookiePair(login.headers) } },
    );
    const session = response.headers.getSetCookie().find((c) => c.startsWith('flagstaff_session=')) ?? '';
    return { response, cookie: session.split(';')[0] ?? '' };
  }

  const person = (sub: string, groups: string[] = ['flag-admins']) => ({
    sub,
    email: `${sub}@example.com`,
    email_verified: true,
    groups,
  });
  const resetLink = (accountId: string) =>
    sso.server.call('POST', `/v1/accounts/${accountId}/password-reset`, { key: ADMIN_KEY });

  it('can be given no password: no reset link, no change of its own, no password sign-in', async () => {
    const { response, cookie } = await signInWithSso(person('pat'));
    expect(response.status).toBe(302);
    const pat = await sso.server.store.findAccountByEmail('pat@example.com');
    const refused = await resetLink(pat?.id as string);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict' });
    expect(refused.body.detail).toMatch(/pat@example.com signs in with single sign-on/);

    const own = await sso.server.call('POST', '/v1/me/password', {
      cookie,
      body: { currentPassword: 'anything at all', newPassword: 'a brand new password' },
    });
    expect(own.status).toBe(409);
    expect((await sso.server.store.findAccountById(pat?.id as string))?.passwordHash).toBe(UNUSABLE_HASH);
    const audit = await sso.server.call('GET', `/v1/audit-log?resourceId=${pat?.id}&limit=50`, {
      key: ADMIN_KEY,
    });
    expect(audit.body.map((event: { action: string }) => event.action)).not.toContain(
      'account.reset_link_created',
    );

    // A password given before this rule existed no longer signs anyone in.
    const stored = await sso.server.store.findAccountById(pat?.id as string);
    if (stored === undefined) throw new Error('pat is gone');
    const passwordHash = await hashPassword('a password from before');
    await sso.server.store.updateAccount(
      { ...stored, passwordHash, version: stored.version + 1 },
      stored.version,
    );
    const byPassword = await sso.server.call('POST', '/v1/auth/sign-in', {
      body: { email: 'pat@example.com', password: 'a password from before' },
    });
    expect(byPassword.status).toBe(403);
    expect(byPassword.body.detail).toMatch(/signs in with single sign-on/);
  });

  it('refuses a reset link made before its first single sign-on bound it', async () => {
    const made = await sso.server.call('POST', '/scim/v2/Users', {
      key: ADMIN_KEY,
      origin: null,
      body: { schemas: [USER], userName: 'quinn@example.com' },
    });
    const link = await resetLink(made.body.id);
    expect(link.status).toBe(201);
    expect((await signInWithSso(person('quinn'))).response.status).toBe(302);

    const preview = await sso.server.call('POST', '/v1/auth/password-reset', {
      body: { token: link.body.token },
    });
    expect(preview.status).toBe(409);
    const used = await sso.server.call('POST', '/v1/auth/reset-password', {
      body: { token: link.body.token, password: 'a password of my own' },
    });
    expect(used.status).toBe(409);
    expect(used.headers.get('set-cookie') ?? '').not.toMatch(/flagstaff_session=[^;]/);
    expect((await sso.server.store.findAccountById(made.body.id))?.passwordHash).toBe(UNUSABLE_HASH);
  });

  it('loses its sessions and its role when the provider drops every group it had, audited', async () => {
    const first = await signInWithSso(person('rae'));
    const other = await signInWithSso(person('rae'));
    const me = await sso.server.call('GET', '/v1/me', { cookie: first.cookie });
    expect(me.body.account).toMatchObject({ email: 'rae@example.com', role: 'admin' });

    const refused = await signInWithSso(person('rae', ['marketing']));
    expect(refused.response.status).toBe(403);
    expect(await refused.response.text()).toMatch(/not in any group that has access/);
    for (const cookie of [first.cookie, other.cookie]) {
      expect((await sso.server.call('GET', '/v1/me', { cookie })).status).toBe(401);
    }
    const rae = await sso.server.store.findAccountByEmail('rae@example.com');
    expect(rae).toMatchObject({ role: 'evaluator', projectId: null, sso: { subject: 'rae', roles: [] } });
    const audit = await sso.server.call('GET', `/v1/audit-log?resourceId=${rae?.id}&limit=5`, {
      key: ADMIN_KEY,
    });
    expect(audit.body[0]).toMatchObject({
      action: 'account.access_revoked',
      actor: { type: 'user', id: rae?.id },
      details: { via: 'sso', sessionsEnded: 2 },
      before: { role: 'admin' },
      after: { role: 'evaluator' },
    });

    // The provider lets the person in again: the role its groups give comes back with the sign-in.
    const back = await signInWithSso(person('rae', ['support']));
    expect(back.response.status).toBe(302);
    expect((await sso.server.call('GET', '/v1/me', { cookie: back.cookie })).body.account.role).toBe(
      'viewer',
    );
  });

  it('loses its sessions when the provider no longer says its email', async () => {
    const first = await signInWithSso(person('sam'));
    const refused = await signInWithSso({ ...person('sam'), email: undefined });
    expect(refused.response.status).toBe(403);
    expect((await sso.server.call('GET', '/v1/me', { cookie: first.cookie })).status).toBe(401);
    expect((await sso.server.store.findAccountByEmail('sam@example.com'))?.role).toBe('evaluator');
  });
});

it('ends the sessions passwords started at the next start with password sign-in off, and only those', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-password-off-'));
  const forging = await startForgingIssuer(CLIENT_ID);
  const started: { close(): Promise<unknown> }[] = [];
  try {
    const start = async (passwordSignIn: 'on' | 'off') => {
      const app = await serve(
        loadConfig({
          FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'flagstaff.db')}`,
          FLAGSTAFF_ADMIN_KEY: ADMIN_KEY,
          FLAGSTAFF_ADMIN_EMAIL: 'ada@example.com',
          FLAGSTAFF_ADMIN_PASSWORD: 'correct horse battery staple',
          FLAGSTAFF_PORT: '0',
          FLAGSTAFF_LOG_LEVEL: 'silent',
          FLAGSTAFF_PUBLIC_URL: 'http://127.0.0.1:9',
          FLAGSTAFF_OIDC_ISSUER: forging.issuer,
          FLAGSTAFF_OIDC_CLIENT_ID: CLIENT_ID,
          FLAGSTAFF_OIDC_CLIENT_SECRET: 'client-secret-0123456789',
          FLAGSTAFF_OIDC_ROLES: 'flag-admins=admin',
          FLAGSTAFF_PASSWORD_SIGN_IN: passwordSignIn,
        }),
      );
      started.push(app);
      return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
    };
    const me = (url: string, cookie: string) => fetch(`${url}/v1/me`, { headers: { cookie } });

    const first = await start('on');
    const signedIn = await fetch(`${first.url}/v1/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: first.url },
      body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery staple' }),
    });
    const password = cookiePair(signedIn.headers);
    const login = await fetch(`${first.url}/v1/auth/oidc/login`, { redirect: 'manual' });
    forging.nonce = new URL(login.headers.get('location') ?? '').searchParams.get('nonce') ?? '';
    forging.claims = { sub: 'tess', email: 'tess@example.com', email_verified: true };
    const state = new URL(login.headers.get('location') ?? '').searchParams.get('state');
    const callback = await fetch(`${first.url}/v1/auth/oidc/callback?code=c1&state=${state}`, {
      redirect: 'manual',
      headers: { cookie: cookiePair(login.headers) },
    });
    const sso =
      (callback.headers.getSetCookie().find((c) => c.startsWith('flagstaff_session=')) ?? '').split(';')[0] ??
      '';
    expect((await me(first.url, password)).status).toBe(200);
    expect((await me(first.url, sso)).status).toBe(200);
    await first.app.close();

    const again = await start('on');
    expect((await me(again.url, password)).status).toBe(200);
    await again.app.close();

    const off = await start('off');
    expect((await me(off.url, password)).status).toBe(401);
    expect((await me(off.url, sso)).status).toBe(200);
  } finally {
    for (const app of started) await app.close();
    await forging.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

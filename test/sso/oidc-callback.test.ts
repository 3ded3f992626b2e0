import { beforeEach, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/logging.ts';
import { ADMIN_KEY, cookiePair } from '../dashboard/support.ts';
import { describeEachDatabase } from '../support/database.ts';
import { collectLines } from '../support/log-lines.ts';
import { SSO_CLIENT_ID, useSsoDashboard } from './sso-dashboard.ts';

const CLIENT_ID = SSO_CLIENT_ID;

/**
 * Every way a single sign-on callback can be wrong, over HTTP against an issuer whose tokens the
 * test chooses: each is refused with a page (problem+json when asked), creates no account and
 * logs no token or code.
 */
describeEachDatabase('Single sign-on refuses a callback it cannot trust', (database) => {
  const lines: string[] = [];
  const sso = useSsoDashboard(database, 'flag-admins=admin,support=viewer', {
    logger: loggerOptions('debug', collectLines(lines)),
    beforeServer: (forging) => {
      forging.down = true; // the provider is down while Flagstaff starts
    },
  });

  beforeEach(() => {
    sso.forging.down = false;
    sso.forging.foreignKey = false;
    sso.forging.claims = {};
  });

  /** Starts a sign-in as a browser would: the provider's URL (state, nonce) and the pending-sign-in cookie. */
  async function begin(returnTo = '/projects') {
    const response = await fetch(
      `${sso.server.url}/v1/auth/oidc/login?returnTo=${encodeURIComponent(returnTo)}`,
      {
        redirect: 'manual',
      },
    );
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    sso.forging.nonce = location.searchParams.get('nonce') ?? '';
    return {
      location,
      state: location.searchParams.get('state') ?? '',
      cookie: cookiePair(response.headers),
    };
  }

  const callback = (query: string, cookie?: string, accept = 'text/html,application/xhtml+xml') =>
    fetch(`${sso.server.url}/v1/auth/oidc/callback?${query}`, {
      redirect: 'manual',
      headers: { accept, ...(cookie === undefined ? {} : { cookie }) },
    });

  async function expectRefusedPage(response: Response, status: number, text: RegExp) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toMatch(text);
    expect(page).toContain('href="/"');
    expect(response.headers.get('set-cookie') ?? '').not.toMatch(/flagstaff_session=[^;]/);
    expect(await sso.server.store.findAccountByEmail('mallory@example.com')).toBeUndefined();
  }

  it('starts even though the provider is down, and says so at sign-in until it is back', async () => {
    sso.forging.down = true;
    const options = await sso.server.call('GET', '/v1/auth/options');
    expect(options.body).toEqual({
      passwordSignIn: true,
      sso: { label: 'Acme ID', loginPath: '/v1/auth/oidc/login' },
    });
    const login = await fetch(`${sso.server.url}/v1/auth/oidc/login`, { redirect: 'manual' });
    await expectRefusedPage(login, 503, /identity provider cannot be reached/);

    sso.forging.down = false;
    const { location } = await begin();
    expect(location.origin).toBe(sso.forging.issuer);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: CLIENT_ID,
      response_type: 'code',
      code_challenge_method: 'S256',
      redirect_uri: `${sso.server.url}/v1/auth/oidc/callback`,
    });
    expect(location.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
  });

  it('signs in with a good token, once: the same callback again is refused', async () => {
    const { state, cookie } = await begin('/projects/default/flags');
    const good = await callback(`code=c1&state=${state}`, cookie);
    expect(good.status).toBe(302);
    expect(good.headers.get('location')).toBe('/projects/default/flags');
    const session = good.headers.getSetCookie().find((c) => c.startsWith('flagstaff_session=')) ?? '';
    const me = await sso.server.call('GET', '/v1/me', { cookie: session.split(';')[0] });
    expect(me.body.account).toMatchObject({ email: 'mallory@example.com', role: 'admin', projectId: null });
    expect(me.body.account.sso.roles).toEqual([{ value: 'flag-admins', role: 'admin', project: null }]);

    const replayed = await callback(`code=c1&state=${state}`, cookie);
    expect(replayed.status).toBe(400);
    // Later tests check that their refusals create no account for this email.
    const removed = await sso.server.call('DELETE', `/v1/accounts/${me.body.account.id}`, { key: ADMIN_KEY });
    expect(removed.status).toBe(204);
  });

  it('returns to a path with non-ASCII characters, percent-encoded, and never to the API', async () => {
    const signInTo = async (returnTo: string) => {
      const { state, cookie } = await begin(returnTo);
      const response = await callback(`code=c1&state=${state}`, cookie);
      expect(response.status).toBe(302);
      return response.headers.get('location');
    };
    // Beyond Latin-1 a Location header cannot be written at all: this was a 500.
    expect(await signInTo('/projects/✓/flags?q=naïve')).toBe('/projects/%E2%9C%93/flags?q=na%C3%AFve');
    expect(await signInTo('/projects/%E2%9C%93')).toBe('/projects/%E2%9C%93');
    expect(await signInTo('/projects/../v1/api-keys')).toBe('/');
    const mallory = await sso.server.store.findAccountByEmail('mallory@example.com');
    expect((await sso.server.call('DELETE', `/v1/accounts/${mallory?.id}`, { key: ADMIN_KEY })).status).toBe(
      204,
    );
  });

  it('refuses a callback with no sign-in started, a forged state, or another browser’s', async () => {
    await expectRefusedPage(await callback('code=c1'), 400, /could not be verified/);
    const { state, cookie } = await begin();
    await expectRefusedPage(
      await callback('code=c1&state=forged-state', cookie),
      400,
      /could not be verified/,
    );
    await expectRefusedPage(await callback(`code=c1&state=${state}`), 400, /could not be verified/);
    const other = await begin();
    await expectRefusedPage(
      await callback(`code=c1&state=${other.state}`, cookie),
      400,
      /could not be verified/,
    );
  });

  it.each([
    [
      'a wrong nonce',
      () => {
        sso.forging.claims = { nonce: 'not-the-one-sent' };
      },
    ],
    [
      'a token signed by another key',
      () => {
        sso.forging.foreignKey = true;
      },
    ],
    [
      'a token for another audience',
      () => {
        sso.forging.claims = { aud: 'another-client' };
      },
    ],
    [
      'an expired token',
      () => {
        sso.forging.claims = { exp: Math.floor(Date.now() / 1000) - 3600 };
      },
    ],
    [
      'a token from another issuer',
      () => {
        sso.forging.claims = { iss: 'https://evil.example.com' };
      },
    ],
  ])('refuses %s', async (_, forge) => {
    const { state, cookie } = await begin();
    forge();
    await expectRefusedPage(await callback(`code=c1&state=${state}`, cookie), 400, /could not be verified/);
  });

  it('refuses when the provider goes down during the sign-in', async () => {
    const { state, cookie } = await begin();
    sso.forging.down = true;
    await expectRefusedPage(await callback(`code=c1&state=${state}`, cookie), 503, /cannot be reached/);
  });

  it('answers problem+json to a client that asks for JSON', async () => {
    const response = await callback('code=c1&state=nothing', undefined, 'application/json');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  it('refuses a person in no mapped group, naming no group or claim', async () => {
    const { state, cookie } = await begin();
    sso.forging.claims = { groups: ['marketing'] };
    const refused = await callback(`code=c1&state=${state}`, cookie);
    expect(refused.status).toBe(403);
    const page = await refused.text();
    expect(page).toMatch(/not in any group that has access to Flagstaff/);
    expect(page).not.toMatch(/marketing|groups|flag-admins/);
    expect(await sso.server.store.findAccountByEmail('mallory@example.com')).toBeUndefined();
  });

  it('never links a password account with the same email silently', async () => {
    const { state, cookie } = await begin();
    sso.forging.claims = { email: 'ada@example.com', sub: 'someone-else' };
    const refused = await callback(`code=c1&state=${state}`, cookie);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/already a Flagstaff account for ada@example.com/);
    const ada = await sso.server.store.findAccountByEmail('ada@example.com');
    expect(ada?.sso).toBeNull();
  });

  const provision = async (user: Record<string, unknown>) => {
    const made = await sso.server.call('POST', '/scim/v2/Users', {
      key: ADMIN_KEY,
      origin: null,
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], ...user },
    });
    expect(made.status).toBe(201);
    return made.body.id as string;
  };
  const deprovision = async (id: string) =>
    expect(
      (await sso.server.call('DELETE', `/scim/v2/Users/${id}`, { key: ADMIN_KEY, origin: null })).status,
    ).toBe(204);

  it.each([
    ['does not say it is verified', {}],
    ['says it is not verified', { email_verified: false }],
  ])('never binds an account made over SCIM by an email the provider %s', async (_, claims) => {
    const id = await provision({ userName: 'mallory@example.com' });
    const { state, cookie } = await begin();
    sso.forging.claims = claims;
    const refused = await callback(`code=c1&state=${state}`, cookie);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/has not verified your email address mallory@example.com/);
    expect(await sso.server.store.findAccountById(id)).toMatchObject({ sso: null, role: 'evaluator' });
    await deprovision(id);
  });

  it('binds an account made over SCIM whose externalId is the subject, whatever its email', async () => {
    const id = await provision({ userName: 'm.other@example.com', externalId: 'forged-subject' });
    const { state, cookie } = await begin();
    const signedIn = await callback(`code=c1&state=${state}`, cookie);
    expect(signedIn.status).toBe(302);
    expect(await sso.server.store.findAccountById(id)).toMatchObject({
      email: 'm.other@example.com',
      role: 'admin',
      sso: { subject: 'forged-subject' },
    });
    expect(await sso.server.store.findAccountByEmail('mallory@example.com')).toBeUndefined();
    await deprovision(id);
  });

  it('binds an account the provider created over SCIM at its first sign-in, and refuses it once deactivated', async () => {
    const provisioned = await sso.server.call('POST', '/scim/v2/Users', {
      key: ADMIN_KEY,
      origin: null,
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'mallory@example.com' },
    });
    expect(provisioned.status).toBe(201);
    const first = await begin();
    sso.forging.claims = { email_verified: true };
    const signedIn = await callback(`code=c1&state=${first.state}`, first.cookie);
    expect(signedIn.status).toBe(302);
    expect(await sso.server.store.findAccountByEmail('mallory@example.com')).toMatchObject({
      id: provisioned.body.id,
      role: 'admin',
      sso: { subject: 'forged-subject' },
    });

    await sso.server.call('PATCH', `/scim/v2/Users/${provisioned.body.id}`, {
      key: ADMIN_KEY,
      origin: null,
      body: { Operations: [{ op: 'replace', path: 'active', value: false }] },
    });
    const again = await begin();
    const refused = await callback(`code=c1&state=${again.state}`, again.cookie);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/deactivated/);
  });

  it('logs neither the code, the state nor any token', () => {
    const logged = lines.join('');
    expect(logged).toContain('/v1/auth/oidc/callback');
    expect(logged).not.toMatch(/code=c1|forged-state|forged-access-token|eyJ/);
  });

  it('limits how many sign-ins one address may start (each keeps a pending row)', async () => {
    let status = 302;
    for (let i = 0; i < 40 && status === 302; i++) {
      status = (await fetch(`${sso.server.url}/v1/auth/oidc/login`, { redirect: 'manual' })).status;
    }
    expect(status).toBe(429);
  });
});

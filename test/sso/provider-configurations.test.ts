import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/logging.ts';
import { ADMIN_KEY, cookiePair, type DashboardServer, startDashboardServer } from '../dashboard/support.ts';
import { collectLines } from '../support/log-lines.ts';
import { type GroupsRelease, startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { providerSsoSettings } from '../support/sso-settings.ts';

/** The cookies one party (the browser at the provider) holds, by name. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  take(headers: Headers): void {
    for (const cookie of headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  get header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * The whole sign-in as a browser makes it, without one: Flagstaff's login, the provider's
 * development login form, its redirects, and Flagstaff's callback. Answers the callback's reply.
 */
async function signInThroughProvider(server: DashboardServer, login: string): Promise<Response> {
  const start = await fetch(`${server.url}/v1/auth/oidc/login?returnTo=%2Fprojects`, { redirect: 'manual' });
  const flagstaffCookie = cookiePair(start.headers);
  const atProvider = new CookieJar();
  let location = new URL(start.headers.get('location') ?? '');
  for (let hop = 0; hop < 10 && !location.pathname.endsWith('/v1/auth/oidc/callback'); hop++) {
    const interaction = location.pathname.startsWith('/interaction/');
    const response = await fetch(location, {
      redirect: 'manual',
      method: interaction && hop > 0 ? 'POST' : 'GET',
      headers: { cookie: atProvider.header, 'content-type': 'application/x-www-form-urlencoded' },
      ...(interaction && hop > 0
        ? { body: new URLSearchParams({ prompt: 'login', login, password: 'x' }) }
        : {}),
    });
    atProvider.take(response.headers);
    // The interaction page is the login form: submit it to its own address.
    if (response.status === 200 && interaction) continue;
    expect(response.status, await response.clone().text()).toBeGreaterThanOrEqual(300);
    location = new URL(response.headers.get('location') ?? '', location);
  }
  return fetch(location, {
    redirect: 'manual',
    headers: { cookie: flagstaffCookie, accept: 'text/html' },
  });
}

/**
 * Single sign-on against a real OpenID provider in each way providers release groups
 * (issue 38): in the ID token, only for a `groups` scope (Okta, Dex: FLAGSTAFF_OIDC_SCOPES),
 * only from UserInfo, and not at all, when the refusal page and the log name the missing claim.
 */
describe.each<{ release: GroupsRelease; scopes?: string[]; signsIn: boolean }>([
  { release: 'id-token', signsIn: true },
  { release: 'groups-scope', scopes: ['openid', 'email', 'profile', 'groups'], signsIn: true },
  { release: 'groups-scope', signsIn: false },
  { release: 'userinfo', signsIn: true },
  { release: 'none', signsIn: false },
])('Single sign-on with groups released $release, scopes $scopes', ({ release, scopes, signsIn }) => {
  let server: DashboardServer;
  let provider: TestOidcProvider;
  const lines: string[] = [];
  const callbackUrl = () => `${server.url}/v1/auth/oidc/callback`;

  beforeAll(async () => {
    const settings = providerSsoSettings(() => provider, callbackUrl, 'flag-admins=admin', scopes);
    server = await startDashboardServer({
      signIn: { sso: settings },
      logger: loggerOptions('info', collectLines(lines)),
    });
    provider = await startOidcProvider(callbackUrl, release);
    provider.people.set('alice', { email: 'alice@example.com', name: 'Alice', groups: ['flag-admins'] });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  it(
    signsIn ? 'signs Alice of flag-admins in as an admin' : 'refuses Alice, naming the missing claim',
    async () => {
      const reply = await signInThroughProvider(server, 'alice');
      if (signsIn) {
        expect(reply.status).toBe(302);
        expect(reply.headers.get('location')).toBe('/projects');
        const accounts = await server.call('GET', '/v1/accounts?q=alice', { key: ADMIN_KEY });
        expect(accounts.body).toMatchObject([{ email: 'alice@example.com', role: 'admin' }]);
        return;
      }
      expect(reply.status).toBe(403);
      const page = await reply.text();
      expect(page.replaceAll('&#34;', '"')).toContain('did not send the "groups" claim');
      expect(page).toContain('FLAGSTAFF_OIDC_SCOPES');
      const refused = lines
        .map((line) => JSON.parse(line))
        .find((line) => line.msg === 'single sign-on refused');
      expect(refused.reason).toBe(
        `the ID token and UserInfo carry no "groups" claim (scopes asked: ${(scopes ?? ['openid', 'email', 'profile']).join(' ')})`,
      );
    },
  );
});

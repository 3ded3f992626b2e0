import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../../src/http/build-app.ts';
import { bootstrapAccounts } from '../../src/services/accounts/account-service.ts';
import type { SessionOptions } from '../../src/services/accounts/session-service.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import type { ServiceOptions, Services } from '../../src/services/services.ts';
import type { Store } from '../../src/storage/store.ts';
import { buildTestApp } from '../support/app.ts';
import { type TestDatabase, testDatabases } from '../support/database.ts';
import { ADMIN_KEY } from '../support/server.ts';

export { ADMIN_KEY };
export const ADMIN_EMAIL = 'ada@example.com';
export const ADMIN_PASSWORD = 'correct horse battery staple';

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
  readonly body: any;
}

export interface CallOptions {
  readonly body?: unknown;
  /** A session cookie's value (`flagstaff_session=…`), sent with the request. */
  readonly cookie?: string;
  /** Default: this server's own origin on writes; null sends none. */
  readonly origin?: string | null;
  /** An API key instead of a cookie. */
  readonly key?: string;
  readonly headers?: Record<string, string>;
}

export interface DashboardServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly services: Services;
  /** The store behind the services, for tests that look at the database directly. */
  readonly store: Store;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  /** Signs in and returns the cookie to send (`flagstaff_session=…`). */
  signIn(email?: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

const [sqlite] = testDatabases() as [TestDatabase];

/**
 * A real server over a fresh database with the admin key and a first admin account
 * (FLAGSTAFF_ADMIN_EMAIL/PASSWORD), as `flagstaff serve` sets it up.
 */
export async function startDashboardServer(
  options: {
    database?: TestDatabase;
    sessions?: SessionOptions;
    account?: boolean;
    dashboardRoot?: string;
    /** Single sign-on and password sign-in, as FLAGSTAFF_OIDC_* and FLAGSTAFF_PASSWORD_SIGN_IN set them. */
    signIn?: Pick<ServiceOptions, 'sso' | 'passwordSignIn'>;
    /** FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE, so a receiver on this machine can be registered. */
    webhooksAllowPrivate?: boolean;
    logger?: AppOptions['logger'];
  } = {},
): Promise<DashboardServer> {
  const opened = await (options.database ?? sqlite).open();
  await bootstrap(opened.store, ADMIN_KEY);
  if (options.account !== false)
    await bootstrapAccounts(opened.store, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  const { app, node } = await buildTestApp(opened.store, {
    node: {
      sessions: options.sessions ?? {},
      ...options.signIn,
      ...(options.webhooksAllowPrivate === undefined
        ? {}
        : { webhooksAllowPrivate: options.webhooksAllowPrivate }),
    },
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.dashboardRoot === undefined ? {} : { dashboardRoot: options.dashboardRoot }),
  });
  const { services } = node;
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.cookie) headers.cookie = o.cookie;
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    const origin = o.origin === undefined ? (method === 'GET' ? null : url) : o.origin;
    if (origin !== null) headers.origin = origin;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body };
  };

  return {
    url,
    app,
    services,
    store: opened.store,
    call,
    async signIn(email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
      const res = await call('POST', '/v1/auth/sign-in', { body: { email, password } });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
      return cookiePair(res.headers);
    },
    async close() {
      await app.close();
      await opened.close();
    },
  };
}

/** `name=value` of the Set-Cookie header, as a browser would send it back. */
export function cookiePair(headers: Headers): string {
  const header = headers.get('set-cookie') ?? '';
  return header.split(';')[0] ?? '';
}

export interface Invitation {
  readonly email: string;
  readonly role: string;
  /** A project key, or null for the whole organisation. */
  readonly project: string | null;
}

/**
 * An account made the way a person makes one: `admin` (a cookie) invites, the invitee joins.
 * Both replies, and the new session's cookie.
 */
export async function inviteAndJoin(
  server: DashboardServer,
  admin: string,
  invitation: Invitation,
  person: { readonly name: string; readonly password: string },
): Promise<{ invited: Reply; joined: Reply; cookie: string }> {
  const invited = await server.call('POST', '/v1/invitations', { cookie: admin, body: invitation });
  const joined = await server.call('POST', '/v1/auth/join', {
    body: { token: invited.body.token, ...person },
  });
  return { invited, joined, cookie: cookiePair(joined.headers) };
}

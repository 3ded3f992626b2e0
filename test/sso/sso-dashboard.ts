import { afterAll, beforeAll } from 'vitest';
import type { AppOptions } from '../../src/http/build-app.ts';
import { type DashboardServer, startDashboardServer } from '../dashboard/support.ts';
import type { TestDatabase } from '../support/database.ts';
import { type ForgingIssuer, startForgingIssuer } from '../support/forging-oidc-issuer.ts';
import { testSsoSettings } from '../support/sso-settings.ts';

/** The client id the forging issuer signs tokens for and the server signs in as. */
export const SSO_CLIENT_ID = 'flagstaff';

/** What a suite signing people in through a forging issuer works with, once its beforeAll ran. */
export interface SsoDashboard {
  /** The issuer whose tokens (claims, failures) the test chooses. */
  readonly forging: ForgingIssuer;
  readonly server: DashboardServer;
}

/**
 * Starts, before the suite's tests, a forging OpenID issuer and a dashboard server whose single
 * sign-on is that issuer with `roles` (FLAGSTAFF_OIDC_ROLES as written), and closes both after
 * them. `beforeServer` sets the issuer up before the server first reads it (e.g. down at start).
 */
export function useSsoDashboard(
  database: TestDatabase,
  roles: string,
  options: {
    logger?: AppOptions['logger'];
    beforeServer?: (forging: ForgingIssuer) => void;
  } = {},
): SsoDashboard {
  let forging: ForgingIssuer | undefined;
  let server: DashboardServer | undefined;
  beforeAll(async () => {
    const issuer = await startForgingIssuer(SSO_CLIENT_ID);
    forging = issuer;
    options.beforeServer?.(issuer);
    const settings = testSsoSettings({
      issuer: () => issuer.issuer,
      clientId: SSO_CLIENT_ID,
      redirectUri: () => `${server?.url}/v1/auth/oidc/callback`,
      roles,
    });
    server = await startDashboardServer({
      database,
      signIn: { sso: settings },
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  });
  afterAll(async () => {
    await server?.close();
    await forging?.close();
  });
  return {
    get forging() {
      if (!forging) throw new Error('the forging issuer starts in beforeAll');
      return forging;
    },
    get server() {
      if (!server) throw new Error('the dashboard server starts in beforeAll');
      return server;
    },
  };
}

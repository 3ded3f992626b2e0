import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, workerShare } from './config.ts';

describe('loadConfig', () => {
  it('gives the defaults of docs/product.md §1 on an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/flagstaff.db',
      adminKey: undefined,
      adminEmail: undefined,
      adminPassword: undefined,
      logLevel: 'info',
      rateLimitEvaluation: 1000,
      rateLimitManagement: 50,
      workers: 1,
      workerIndex: undefined,
      corsOrigins: ['*'],
      trustProxy: false,
      redisUrl: undefined,
      flagdSyncPort: undefined,
      insights: true,
      webhooksAllowPrivate: false,
      otlpEndpoint: undefined,
      otelServiceName: 'flagstaff',
      publicUrl: undefined,
      oidc: undefined,
      passwordSignIn: true,
      shutdownGraceMs: 10_000,
      secretKey: undefined,
      legacySyncCredentialsUntil: undefined,
      eventRetentionDays: 90,
      prometheusUrl: undefined,
      releaseIdleMemory: true,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      FLAGSTAFF_PORT: '9000',
      FLAGSTAFF_HOST: '0.0.0.0',
      FLAGSTAFF_DATABASE_URL: 'postgres://u@db/flags',
      FLAGSTAFF_ADMIN_KEY: 'k'.repeat(32),
      FLAGSTAFF_LOG_LEVEL: 'debug',
      FLAGSTAFF_RATE_LIMIT_EVALUATION: '0',
      FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '7',
      FLAGSTAFF_CORS_ORIGINS: 'https://a.example, https://b.example',
      FLAGSTAFF_FLAGD_SYNC_PORT: '8015',
      FLAGSTAFF_INSIGHTS: 'off',
      FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE: 'true',
      FLAGSTAFF_SHUTDOWN_GRACE: '25',
      FLAGSTAFF_SECRET_KEY: 's'.repeat(43),
      FLAGSTAFF_EVENT_RETENTION_DAYS: '30',
      FLAGSTAFF_PROMETHEUS_URL: 'http://prometheus:9090',
      FLAGSTAFF_RELEASE_IDLE_MEMORY: 'off',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u@db/flags',
      adminKey: 'k'.repeat(32),
      logLevel: 'debug',
      rateLimitEvaluation: 0,
      rateLimitManagement: 7,
      corsOrigins: ['https://a.example', 'https://b.example'],
      flagdSyncPort: 8015,
      insights: false,
      webhooksAllowPrivate: true,
      shutdownGraceMs: 25_000,
      secretKey: 's'.repeat(43),
      eventRetentionDays: 30,
      prometheusUrl: 'http://prometheus:9090',
      releaseIdleMemory: false,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['FLAGSTAFF_PORT', 'eighty'],
    ['FLAGSTAFF_PORT', '70000'],
    ['FLAGSTAFF_DATABASE_URL', 'mysql://x'],
    ['FLAGSTAFF_ADMIN_KEY', 'short'],
    ['FLAGSTAFF_LOG_LEVEL', 'loud'],
    ['FLAGSTAFF_RATE_LIMIT_EVALUATION', '-1'],
    ['FLAGSTAFF_RATE_LIMIT_MANAGEMENT', '1.5'],
    ['FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE', 'yes'],
    ['FLAGSTAFF_FLAGD_SYNC_PORT', '0'],
    ['FLAGSTAFF_PUBLIC_URL', 'flags.example.com'],
    ['FLAGSTAFF_PUBLIC_URL', 'ftp://flags.example.com'],
    ['FLAGSTAFF_PASSWORD_SIGN_IN', 'no'],
    ['FLAGSTAFF_OIDC_ISSUER', 'not a url'],
    ['FLAGSTAFF_OIDC_ISSUER', 'http://id.example.com'],
    ['FLAGSTAFF_SHUTDOWN_GRACE', '0'],
    ['FLAGSTAFF_SHUTDOWN_GRACE', '10s'],
    ['FLAGSTAFF_SECRET_KEY', 'too-short-to-be-a-server-key'],
    ['FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL', 'next month'],
    ['FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL', '2999-01-01'],
    ['FLAGSTAFF_EVENT_RETENTION_DAYS', '0'],
    ['FLAGSTAFF_EVENT_RETENTION_DAYS', 'forever'],
    ['FLAGSTAFF_PROMETHEUS_URL', 'prometheus:9090'],
    ['FLAGSTAFF_RELEASE_IDLE_MEMORY', 'true'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('never repeats a database password in its message', () => {
    expect(() => loadConfig({ FLAGSTAFF_DATABASE_URL: 'mysql://user:hunter2@db/x' })).toThrow(
      /^(?!.*hunter2)/,
    );
  });

  it.each([
    ['FLAGSTAFF_ADMIN_KEY', 'change-me-to-a-secret-of-at-least-32-characters'],
    ['FLAGSTAFF_SECRET_KEY', 'change-me-to-a-server-key-of-at-least-32-characters'],
    ['FLAGSTAFF_DATABASE_URL', 'postgres://flagstaff:change-me@postgres:5432/flagstaff'],
  ])('refuses the documented placeholder in %s with one line that does not print it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(
        `^${name} holds the documented placeholder (password )?"change-me…": set a secret of your own`,
      ),
    );
    expect(() => loadConfig({ [name]: value })).not.toThrow(value);
  });

  describe('single sign-on', () => {
    const sso = {
      FLAGSTAFF_OIDC_ISSUER: 'https://id.example.com',
      FLAGSTAFF_OIDC_CLIENT_ID: 'flagstaff',
      FLAGSTAFF_OIDC_CLIENT_SECRET: 'client-secret',
      FLAGSTAFF_PUBLIC_URL: 'https://flags.example.com',
      FLAGSTAFF_OIDC_ROLES: 'flag-admins=admin,shop-devs=editor:webshop',
    };

    it('reads the provider, the client, the callback address and the role mapping', () => {
      expect(loadConfig({ ...sso, FLAGSTAFF_PASSWORD_SIGN_IN: 'off' })).toMatchObject({
        publicUrl: 'https://flags.example.com',
        passwordSignIn: false,
        oidc: {
          issuer: 'https://id.example.com',
          clientId: 'flagstaff',
          redirectUri: 'https://flags.example.com/v1/auth/oidc/callback',
          label: 'SSO',
          rolesClaim: 'groups',
          roles: [
            { value: 'flag-admins', role: 'admin', project: null },
            { value: 'shop-devs', role: 'editor', project: 'webshop' },
          ],
        },
      });
    });

    it('stops with one line naming FLAGSTAFF_OIDC_ROLES when the mapping is bad', () => {
      expect(() => loadConfig({ ...sso, FLAGSTAFF_OIDC_ROLES: 'flag-admins=owner' })).toThrow(
        /^FLAGSTAFF_OIDC_ROLES "flag-admins=owner": the role must be one of [^\n]+$/,
      );
    });

    it('asks for openid email profile unless FLAGSTAFF_OIDC_SCOPES names more (Okta, Dex: groups)', () => {
      expect(loadConfig(sso).oidc?.scopes).toEqual(['openid', 'email', 'profile']);
      expect(
        loadConfig({ ...sso, FLAGSTAFF_OIDC_SCOPES: 'openid email profile groups' }).oidc?.scopes,
      ).toEqual(['openid', 'email', 'profile', 'groups']);
    });

    it.each([
      ['email groups', /^FLAGSTAFF_OIDC_SCOPES must include openid, got "email groups"$/],
      ['openid "groups"', /^FLAGSTAFF_OIDC_SCOPES has ""groups"", which is not a scope token$/],
    ])('stops with one line when FLAGSTAFF_OIDC_SCOPES is %s', (scopes, message) => {
      expect(() => loadConfig({ ...sso, FLAGSTAFF_OIDC_SCOPES: scopes })).toThrow(message);
    });

    it.each([
      'FLAGSTAFF_OIDC_CLIENT_ID',
      'FLAGSTAFF_OIDC_CLIENT_SECRET',
      'FLAGSTAFF_PUBLIC_URL',
      'FLAGSTAFF_OIDC_ROLES',
    ])('names %s when the issuer is set without it', (name) => {
      expect(() => loadConfig({ ...sso, [name]: '' })).toThrow(name);
    });
  });
});

describe('FLAGSTAFF_WORKERS', () => {
  it('runs one process unless told, and refuses what is not a count', () => {
    expect(loadConfig({ FLAGSTAFF_WORKERS: '4' }).workers).toBe(4);
    expect(() => loadConfig({ FLAGSTAFF_WORKERS: '0' })).toThrow(/^FLAGSTAFF_WORKERS/);
  });

  it('gives each worker its share of a per-key limit, so that together they allow the limit', () => {
    expect(workerShare(1000, 2)).toBe(500);
    expect(workerShare(1000, 3) * 3).toBeGreaterThanOrEqual(1000);
    expect(workerShare(1000, 3) * 3).toBeLessThanOrEqual(1010);
    expect(workerShare(0, 4)).toBe(0);
  });
});

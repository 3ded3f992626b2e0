import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('gives the defaults of SPEC §1 on an empty environment', () => {
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
      corsOrigins: ['*'],
      trustProxy: false,
      redisUrl: undefined,
      flagdSyncPort: undefined,
      insights: true,
      webhooksAllowPrivate: false,
      otlpEndpoint: undefined,
      otelServiceName: 'flagstaff',
      shutdownGraceMs: 10_000,
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
    ['FLAGSTAFF_SHUTDOWN_GRACE', '0'],
    ['FLAGSTAFF_SHUTDOWN_GRACE', '10s'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('never repeats a database password in its message', () => {
    expect(() => loadConfig({ FLAGSTAFF_DATABASE_URL: 'mysql://user:hunter2@db/x' })).toThrow(
      /^(?!.*hunter2)/,
    );
  });
});

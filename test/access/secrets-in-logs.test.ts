import { afterAll, beforeAll, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/logging.ts';
import { hashSecret } from '../../src/services/core/secrets.ts';
import { describeEachDatabase } from '../support/database.ts';
import { collectLines } from '../support/log-lines.ts';
import { ADMIN_KEY, type Harness, startHarness } from './support.ts';

describeEachDatabase('secrets never reach the log or the metrics', (database) => {
  let node: Harness;
  const lines: string[] = [];
  const secrets: string[] = [ADMIN_KEY];

  beforeAll(async () => {
    const stream = collectLines(lines);
    // As `serve` configures it, at the most talkative level that is not trace.
    node = await startHarness(database, {
      logger: loggerOptions('debug', stream),
      rateLimits: { management: 5, evaluation: 5, failedAuthentication: { burst: 2, perSecond: 1 } },
    });
  });
  afterAll(() => node?.close());

  it('logs password reset links and password changes without the token, its hash or a password', async () => {
    const invited = await node.call('POST', '/v1/invitations', {
      body: { email: 'reset@example.com', role: 'viewer', project: null },
    });
    const password = 'first password of theirs';
    const joined = await node.call('POST', '/v1/auth/join', {
      key: null,
      body: { token: invited.body.token, name: 'Reset', password },
    });
    expect(joined.status).toBe(201);
    const link = await node.call('POST', `/v1/accounts/${joined.body.account.id}/password-reset`, {});
    expect(link.status).toBe(201);
    const token = link.body.token as string;
    const chosen = 'the chosen new password';
    secrets.push(invited.body.token, token, password, chosen);
    await node.call('POST', '/v1/auth/password-reset', { key: null, body: { token } });
    expect(
      (await node.call('POST', '/v1/auth/reset-password', { key: null, body: { token, password: chosen } }))
        .status,
    ).toBe(200);
    await node.call('POST', '/v1/auth/reset-password', { key: null, body: { token, password: chosen } }); // 404
    await node.call('POST', `/v1/accounts/${joined.body.account.id}/password-reset?token=${token}`, {});
  });

  it('logs a whole scenario at debug, and counts it in /metrics, without a single secret or secret hash', async () => {
    const project = await node.call('POST', '/v1/api-keys', { body: { name: 'org', role: 'admin' } });
    const evaluator = await node.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'app', role: 'evaluator', environments: ['production'] },
    });
    secrets.push(project.body.secret, evaluator.body.secret);
    const guessed = 'fsk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    secrets.push(guessed);

    const org = project.body.secret as string;
    const app = evaluator.body.secret as string;
    await node.call('POST', '/v1/projects', { key: org, body: { key: 'logged' } });
    await node.call('POST', '/v1/projects/logged/flags', { key: org, body: { key: 'f' } });
    await node.call('POST', '/v1/projects/logged/flags', { key: org, body: { key: 'f' } }); // 409
    await node.call('POST', '/v1/projects/logged/flags', { key: org, body: '{"key":' }); // 400
    for (let i = 0; i < 7; i++) await node.call('GET', '/v1/flags/f?project=default', { key: app }); // 404s, then 429
    await node.call('GET', '/v1/projects', { key: app }); // 403
    await node.call('GET', '/v1/projects', { key: guessed }); // 401
    await node.call('GET', '/v1/projects', { key: guessed }); // 401
    await node.call('GET', '/v1/projects', { key: guessed }); // 429
    await node.call('GET', '/v1/projects', { key: null, headers: { authorization: `Basic ${app}` } });
    await node.call('DELETE', `/v1/api-keys/${evaluator.body.id}`, { key: org });
    await node.call('GET', '/v1/flags/f?project=default', { key: app }); // 401: revoked
    await node.call('GET', '/v1/audit-log', { key: org });

    // Secrets where they do not belong, in every shape a client might send them.
    await node.call('GET', `/v1/projects?api_key=${org}`, { key: null }); // 401: only the header counts
    await node.call('GET', `/v1/projects?apiKey=${encodeURIComponent(org)}&access_token=${org}`, {
      key: null,
    });
    await node.call('GET', `/v1/flags/f?project=logged&attributes=${encodeURIComponent(`{"k":"${org}"}`)}`, {
      key: org,
    });
    await node.call('GET', `/v1/flags/f?project=logged&note=${org}`, { key: org }); // any name: the value looks like a key
    await node.call('GET', `/v1/flags/${org}?project=logged`, { key: org }); // in the path
    await node.call('GET', `/v1/flags/a%zz?api_key=${org}`, { key: org }); // malformed URL, before routing
    await node.call('GET', `/ofrep/v1/nothing?api_key=${org}`, { key: null }); // no such route
    await node.call('POST', `/v1/projects/logged/flags?token=${org}`, { key: org, body: `{"key":"${org}"` });
    await node.call('GET', '/v1/projects', {
      key: null,
      headers: { 'x-api-key': org, cookie: `session=${org}` },
    });
    await node.call('GET', '/v1/projects', { key: null, headers: { 'x-padding': org.repeat(600) } }); // 431

    const metrics = await node.call('GET', '/metrics', { key: null });
    expect(metrics.status).toBe(200);
    const log = lines.join('') + metrics.text;
    expect(lines.length).toBeGreaterThan(20); // a line per request, and the failures
    expect(log).toMatch(/"level":20/);
    expect(log).toContain('api_key=[redacted]');
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(secret.slice(12));
      expect(log).not.toContain(hashSecret(secret));
    }
  });
});

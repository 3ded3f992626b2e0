import { OFREPProvider } from '@openfeature/ofrep-provider';
import { type Client, ErrorCode, OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { ADMIN_KEY, type TestServer } from '../support/server.ts';
import { startServer } from './support/server.ts';
import { createKey, seedVariedProject } from './support/varied-project.ts';

/** The official server SDK with the official OFREP provider, unchanged, against a real socket. */
describeEachDatabase('@openfeature/server-sdk with @openfeature/ofrep-provider', (database) => {
  let server: TestServer;
  let client: Client;
  let domain = 0;

  /** A client of its own OpenFeature domain, talking to the server with these headers. */
  async function clientWith(headers: Record<string, string>): Promise<Client> {
    const name = `${database.name}-${++domain}`;
    await OpenFeature.setProviderAndWait(name, new OFREPProvider({ baseUrl: server.url, headers }));
    return OpenFeature.getClient(name);
  }

  beforeAll(async () => {
    server = await startServer(database);
    await seedVariedProject(server);
    const key = await createKey(server, { role: 'evaluator' });
    client = await clientWith({ Authorization: `Bearer ${key}` });
  });
  afterAll(() => server.close());

  it('boolean: a targeting match, with variant and flag metadata', async () => {
    const details = await client.getBooleanDetails('new-checkout', false, {
      targetingKey: 'u1',
      country: 'NL',
    });
    expect(details).toMatchObject({
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'on',
      flagMetadata: { team: 'checkout', ticket: 42, experiment: false },
    });
    expect(details.errorCode).toBeUndefined();
  });

  it('boolean: the default when no rule matches', async () => {
    const details = await client.getBooleanDetails('new-checkout', true, {
      targetingKey: 'u1',
      country: 'BE',
    });
    expect(details).toMatchObject({ value: false, reason: 'DEFAULT', variant: 'off' });
  });

  it('string: an individual target', async () => {
    const details = await client.getStringDetails('banner-text', 'code', { targetingKey: 'vip-1' });
    expect(details).toMatchObject({ value: 'Hello there', reason: 'TARGETING_MATCH', variant: 'long' });
    expect(await client.getStringValue('banner-text', 'code', { targetingKey: 'someone' })).toBe('Hi');
  });

  it('number: a rollout split, the same answer every time for one user', async () => {
    const details = await client.getNumberDetails('discount', -1, { targetingKey: 'user-9' });
    expect(details.reason).toBe('SPLIT');
    expect([10, 0.5]).toContain(details.value);
    expect(await client.getNumberValue('discount', -1, { targetingKey: 'user-9' })).toBe(details.value);
  });

  it('object: a static value', async () => {
    const details = await client.getObjectDetails('theme', {}, { targetingKey: 'u1' });
    expect(details).toMatchObject({
      value: { background: '#000', contrast: 2, nested: { ok: true } },
      reason: 'STATIC',
      variant: 'dark',
      flagMetadata: { owner: 'design' },
    });
  });

  it('string: JsonLogic targeting imported flagd-style', async () => {
    const details = await client.getStringDetails('email-color', 'code', {
      targetingKey: 'u1',
      email: 'ann@faas.com',
    });
    expect(details).toMatchObject({ value: 'red', reason: 'TARGETING_MATCH', variant: 'red' });
  });

  it('disabled: the off variant, reason DISABLED', async () => {
    const details = await client.getBooleanDetails('legacy-api', true, { targetingKey: 'u1' });
    expect(details).toMatchObject({ value: false, reason: 'DISABLED', variant: 'off' });
  });

  it('disabled without an off variant: the application gets its code default', async () => {
    // No `value` in the response. This provider (0.1.3, the newest) predates OFREP's
    // code-default responses and reports them as an error; either way the code default wins.
    const details = await client.getStringDetails('sunset', 'code default', { targetingKey: 'u1' });
    expect(details.value).toBe('code default');
  });

  it('not found: FLAG_NOT_FOUND and the code default', async () => {
    const details = await client.getBooleanDetails('no-such-flag', true, { targetingKey: 'u1' });
    expect(details).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.FLAG_NOT_FOUND });
  });

  it('type mismatch: TYPE_MISMATCH and the code default', async () => {
    const details = await client.getStringDetails('new-checkout', 'text', { targetingKey: 'u1' });
    expect(details).toMatchObject({ value: 'text', reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH });
    const number = await client.getNumberDetails('theme', 3, { targetingKey: 'u1' });
    expect(number).toMatchObject({ value: 3, errorCode: ErrorCode.TYPE_MISMATCH });
  });

  it('a rollout without a targetingKey: TARGETING_KEY_MISSING and the code default', async () => {
    const details = await client.getNumberDetails('discount', -1, { plan: 'pro' });
    expect(details).toMatchObject({ value: -1, reason: 'ERROR', errorCode: ErrorCode.TARGETING_KEY_MISSING });
  });

  it('another environment through the X-Flagstaff-Environment header', async () => {
    const dev = await clientWith({
      Authorization: `Bearer ${await createKey(server, { role: 'evaluator' })}`,
      'X-Flagstaff-Environment': 'development',
    });
    const details = await dev.getBooleanDetails('new-checkout', false, { targetingKey: 'u1', country: 'BE' });
    expect(details).toMatchObject({ value: true, reason: 'STATIC' });
  });

  it('an unknown key gets the code default with an error, never a value', async () => {
    const stranger = await clientWith({ Authorization: 'Bearer fsk_not-a-key' });
    const details = await stranger.getBooleanDetails('new-checkout', true, {
      targetingKey: 'u1',
      country: 'NL',
    });
    expect(details).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.GENERAL });
  });
});

describe('the OFREP provider over the rate limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Two evaluations, then a bucket that never refills: the clock stands still.
    server = await startServer(undefined, {
      accessControl: { rateLimits: { evaluation: 2, management: 0 }, clock: () => 1_750_000_000_000 },
    });
  });
  afterAll(() => server.close());

  it('gets the code default with an error after a 429, and pauses for Retry-After', async () => {
    const provider = new OFREPProvider({
      baseUrl: server.url,
      headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'X-Flagstaff-Project': 'default' },
    });
    await OpenFeature.setProviderAndWait('rate-limited', provider);
    const limited = OpenFeature.getClient('rate-limited');
    const counted: number[] = [];
    server.app.server.on('request', (_request, response) =>
      response.on('finish', () => counted.push(response.statusCode)),
    );
    for (let i = 0; i < 2; i++) {
      expect(await limited.getBooleanDetails('none', true, {})).toMatchObject({
        errorCode: ErrorCode.FLAG_NOT_FOUND,
      });
    }
    const over = await limited.getBooleanDetails('none', true, {});
    expect(over).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.GENERAL });
    // Within Retry-After the provider does not ask again.
    const paused = await limited.getBooleanDetails('none', true, {});
    expect(paused).toMatchObject({ value: true, errorCode: ErrorCode.GENERAL });
    expect(counted).toEqual([404, 404, 429]);
  });
});

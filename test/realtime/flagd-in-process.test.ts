import type { Metadata } from '@grpc/grpc-js';
import { FlagdProvider } from '@openfeature/flagd-provider';
import {
  type Client,
  type EvaluationDetails,
  type JsonValue,
  OpenFeature,
  ProviderEvents,
} from '@openfeature/server-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAdmission } from '../../src/access/create-admission.ts';
import { syncSourcesOf } from '../../src/main.ts';
import { type FlagdSyncServer, startFlagdSyncServer } from '../../src/openfeature/flagd-sync-server.ts';
import { deriveSyncCredential } from '../../src/plane/sync-credential.ts';
import { hashSecret } from '../../src/services/core/secrets.ts';
import { startServer } from '../openfeature/support/server.ts';
import { flagId, seedVariedProject, VARIED_CONTEXTS } from '../openfeature/support/varied-project.ts';
import { describeEachDatabase } from '../support/database.ts';
import {
  fetchAllClient,
  flagSyncClient,
  selectorMetadata,
  syncSelectorOf,
} from '../support/flagd-sync-client.ts';
import type { TestServer } from '../support/server.ts';

/** Everything the sync server logs, to check that no selector (it holds the key) reaches a line. */
const logged: string[] = [];
const LOG = {
  info: (object: object, message: string) => logged.push(JSON.stringify({ ...object, message })),
  warn: (object: object, message: string) => logged.push(JSON.stringify({ ...object, message })),
};
const COUNTRIES = ['NL', 'BE', 'DE', 'US', undefined];
const PLANS = ['free', 'pro', undefined];
const COMPANIES = ['acme', 'globex', 'initech', undefined];

/** Users with a targetingKey each (flagd cannot be told it is missing), across the varied project's branches. */
const CONTEXTS: Record<string, string>[] = [
  ...VARIED_CONTEXTS.filter((c) => typeof c.targetingKey === 'string' && c.targetingKey !== ''),
  ...Array.from(
    { length: 30 },
    (_, i) =>
      Object.fromEntries(
        Object.entries({
          targetingKey: `user-${100 + i}`,
          country: COUNTRIES[i % COUNTRIES.length],
          plan: PLANS[i % PLANS.length],
          company: COMPANIES[i % COMPANIES.length],
          email: i % 4 === 0 ? `u${i}@faas.com` : `u${i}@example.com`,
        }).filter(([, v]) => v !== undefined),
      ) as Record<string, string>,
  ),
] as Record<string, string>[];

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeEachDatabase('flagd sync: the official flagd provider in in-process mode', (database) => {
  let api: TestServer;
  let sync: FlagdSyncServer;
  let key: string;
  let keyId: string;
  /** `default/production#<sync credential>`, from the API as the dashboard shows it. */
  let selector: string;
  let client: Client;
  const changed: string[][] = [];
  const domain = `flagstaff-${database.name}`;

  beforeAll(async () => {
    api = await startServer(database);
    await seedVariedProject(api);
    const created = await api.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'in-process', role: 'evaluator', environments: ['production'] },
    });
    key = created.body.secret;
    keyId = created.body.id;
    selector = await syncSelectorOf((method, path) => api.call(method, path), keyId, 'production');
    sync = await startFlagdSyncServer(syncSourcesOf(api.node), { port: 0, host: '127.0.0.1', log: LOG });
    // Configured only through its documented options.
    const provider = new FlagdProvider({
      resolverType: 'in-process',
      host: '127.0.0.1',
      port: sync.port,
      selector,
    });
    await OpenFeature.setProviderAndWait(domain, provider);
    client = OpenFeature.getClient(domain);
    client.addHandler(ProviderEvents.ConfigurationChanged, (event) =>
      changed.push(event?.flagsChanged ?? []),
    );
  });
  afterAll(async () => {
    await OpenFeature.clearProviders();
    await sync?.close();
    await api?.close();
  });

  it(`evaluates locally what REST serves (${CONTEXTS.length} contexts × every flag flagd can express exactly)`, async () => {
    const exported = await api.call('GET', '/v1/projects/default/environments/production/flagd');
    const warned = new Set(
      JSON.parse(exported.headers.get('flagstaff-export-warnings') ?? '[]').map(
        (w: { flag: string }) => w.flag,
      ),
    );
    let pairs = 0;
    for (const context of CONTEXTS) {
      const rest = await api.call('POST', '/v1/evaluate', { key, body: { attributes: context } });
      expect(rest.status).toBe(200);
      for (const result of rest.body.flags as { key: string; value: JsonValue; variant: string | null }[]) {
        if (warned.has(result.key)) continue;
        const sentinel = 'code default';
        let details: EvaluationDetails<JsonValue>;
        if (typeof result.value === 'boolean')
          details = await client.getBooleanDetails(result.key, false, context);
        else if (typeof result.value === 'number')
          details = await client.getNumberDetails(result.key, -1, context);
        else if (typeof result.value === 'object' && result.value !== null)
          details = await client.getObjectDetails(result.key, {}, context);
        else details = await client.getStringDetails(result.key, sentinel, context);
        const where = `${result.key} for ${JSON.stringify(context)}: ${JSON.stringify(details)}`;
        if (result.variant === null) {
          expect(details.variant, where).toBeUndefined();
        } else {
          expect({ value: details.value, variant: details.variant }, where).toEqual({
            value: result.value,
            variant: result.variant,
          });
        }
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThanOrEqual(200);
  });

  it('receives a change made over the API, without asking', async () => {
    const id = await flagId(api, 'banner-text');
    const patched = await api.call('PATCH', `/v1/flags/${id}`, { body: { defaultVariant: 'long' } });
    expect(patched.status).toBe(200);
    await waitFor(() => changed.flat().includes('banner-text'), 'the change to arrive');
    expect(await client.getStringValue('banner-text', '', { targetingKey: 'someone' })).toBe('Hello there');
  });

  it('gives a wrong credential no flags (UNAUTHENTICATED) and a key without the environment none either (PERMISSION_DENIED)', async () => {
    const credential = selector.slice(selector.indexOf('#') + 1);
    const everywhere = await api.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'every environment', role: 'evaluator' },
    });
    const production = await api.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'production only', role: 'evaluator', environments: ['production'] },
    });
    const raw = fetchAllClient(sync.port);
    try {
      expect(await raw.fetchAll(`default/production#fsk_wrong`)).toEqual({ code: 16 });
      expect(await raw.fetchAll('default/production')).toEqual({ code: 16 });
      // A credential is bound to its environment: used for another, it proves nothing.
      expect(await raw.fetchAll(`default/development#${credential}`)).toEqual({ code: 16 });
      expect(await raw.fetchAll(`default/production#${credential}x`)).toEqual({ code: 16 });
      // A production-only key has no development selector to offer...
      const offered = await api.call('GET', `/v1/api-keys/${production.body.id}/flagd-sync`);
      expect(offered.body.map((s: { environment: string }) => s.environment)).toEqual(['production']);
      // ...and a key that may read development gets one that works there.
      const development = await syncSelectorOf(
        (method, path) => api.call(method, path),
        everywhere.body.id,
        'development',
      );
      expect(development.startsWith('default/development#fsc.')).toBe(true);
      expect((await raw.fetchAll(development)).code).toBe(0);
      // Were a production-only key's credential for development ever made, the key's scope still refuses it.
      const forged = deriveSyncCredential(
        production.body.id,
        api.services.serverSecret.derive('flagd-sync', hashSecret(production.body.secret)),
        'default/development',
      );
      expect(await raw.fetchAll(`default/development#${forged}`)).toEqual({ code: 7 });
      const good = await raw.fetchAll(selector);
      expect(good.code).toBe(0);
      expect(Object.keys(JSON.parse(good.flags ?? '{}').flags)).toContain('banner-text');
    } finally {
      raw.close();
    }
    // And the provider itself, given a wrong key, serves nothing but code defaults.
    const wrong = new FlagdProvider({
      resolverType: 'in-process',
      host: '127.0.0.1',
      port: sync.port,
      selector: 'default/production#fsk_wrong',
      retryBackoffMaxMs: 60_000,
    });
    await expect(OpenFeature.setProviderAndWait(`${domain}-wrong`, wrong)).rejects.toThrow(
      /UNAUTHENTICATED: /,
    );
    const details = await OpenFeature.getClient(`${domain}-wrong`).getStringDetails(
      'banner-text',
      'code default',
      {
        targetingKey: 'someone',
      },
    );
    expect(details.value).toBe('code default');
    expect(details.errorCode).toBe('FLAG_NOT_FOUND');
  });

  it('refuses an API key in the selector, with a warning naming the key, and the credential anywhere but sync', async () => {
    const raw = fetchAllClient(sync.port);
    try {
      expect(await raw.fetchAll(`default/production#${key}`)).toEqual({ code: 16 });
    } finally {
      raw.close();
    }
    expect(logged.join('\n')).toContain(`"keyId":"${keyId}"`);
    expect(logged.join('\n')).toContain('flagd sync refused an API key in a selector');
    // The credential reads its environment's flag definitions (sync, or the same export flagd's HTTP
    // sync polls: decision 1974) and nothing else: no evaluation, no other export, no management.
    const credential = selector.slice(selector.indexOf('#') + 1);
    for (const [method, path] of [
      ['POST', '/v1/evaluate'],
      ['GET', '/v1/projects/default/environments/development/flagd'],
      ['GET', '/v1/projects/default/flags'],
    ] as const) {
      const reply = await api.call(method, path, {
        key: credential,
        body: method === 'POST' ? {} : undefined,
      });
      expect(reply.status, `${method} ${path}`).toBe(401);
    }
  });

  it('throttles failed authentications per address like HTTP: after 10, RESOURCE_EXHAUSTED, while a key that worked still passes', async () => {
    // A sync server of its own, admitting with failure budgets of its own, so the other tests' failures do not count here.
    const admission = createAdmission(api.store, { keys: api.node.plane.keys });
    const own = await startFlagdSyncServer(
      { ...syncSourcesOf(api.node), admission },
      { port: 0, host: '127.0.0.1', log: LOG },
    );
    const raw = fetchAllClient(own.port);
    try {
      expect((await raw.fetchAll(selector)).code).toBe(0);
      const codes: number[] = [];
      for (let i = 0; i < 50; i++) codes.push((await raw.fetchAll(`default/production#fsc.guess-${i}`)).code);
      expect(codes.slice(0, 10)).toEqual(Array(10).fill(16));
      // RESOURCE_EXHAUSTED (8) for the other 40: guessing is slowed to one a second.
      expect(codes.slice(10)).toEqual(Array(40).fill(8));
      expect((await raw.fetchAll('default/production#fsc.never-seen')).code).toBe(8);
      expect((await raw.fetchAll(selector)).code).toBe(0);
    } finally {
      raw.close();
      await own.close();
    }
  });

  it('ends a stream when its key expires, as OFREP event streams end, and refuses it from then on', async () => {
    const expiring = await api.call('POST', '/v1/projects/default/api-keys', {
      body: {
        name: 'expiring in-process',
        role: 'evaluator',
        environments: ['production'],
        expiresAt: new Date(Date.now() + 2500).toISOString(),
      },
    });
    const expiringSelector = await syncSelectorOf(
      (method, path) => api.call(method, path),
      expiring.body.id,
      'production',
    );
    const client = flagSyncClient<{
      syncFlags(request: object, metadata: Metadata): NodeJS.EventEmitter & { cancel(): void };
    }>(sync.port);
    const call = client.syncFlags({}, selectorMetadata(expiringSelector));
    const received: unknown[] = [];
    call.on('data', (data) => received.push(data));
    const ended = new Promise<number>((resolve) =>
      call.on('error', (error: { code: number }) => resolve(error.code)),
    );
    try {
      await waitFor(() => received.length > 0, 'the first configuration');
      const open = sync.openStreams();
      // UNAUTHENTICATED (16) once the key has expired, like a new call with it; not still open 8 s on.
      const stillOpen = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 8000));
      expect(await Promise.race([ended, stillOpen])).toBe(16);
      expect(sync.openStreams()).toBe(open - 1);
      const raw = fetchAllClient(sync.port);
      try {
        expect(await raw.fetchAll(expiringSelector)).toEqual({ code: 16 });
      } finally {
        raw.close();
      }
    } finally {
      call.cancel();
      client.close();
    }
  });

  it("ends a revoked key's stream", async () => {
    expect(sync.openStreams()).toBe(1);
    expect((await api.call('DELETE', `/v1/api-keys/${keyId}`)).status).toBe(204);
    await waitFor(() => sync.openStreams() === 0, 'the stream to end');
    // The provider reconnects, and is refused.
    const raw = fetchAllClient(sync.port);
    try {
      expect(await raw.fetchAll(selector)).toEqual({ code: 16 });
    } finally {
      raw.close();
    }
  });

  it('logs no key, not even a wrong one', () => {
    expect(logged.join('\n')).toContain('flagd sync refused');
    for (const secret of [key, 'fsk_wrong', selector.slice(selector.indexOf('#'))]) {
      expect(logged.join('\n')).not.toContain(secret);
    }
  });
});

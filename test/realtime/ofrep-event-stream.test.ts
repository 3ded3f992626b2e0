import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { signStreamToken } from '../../src/realtime/stream-token.ts';
import { hashSecret } from '../../src/services/core/secrets.ts';
import { startServer, UNLIMITED } from '../openfeature/support/server.ts';
import { createKey, flagId, seedVariedProject } from '../openfeature/support/varied-project.ts';
import { describeEachDatabase } from '../support/database.ts';
import { collectLines } from '../support/log-lines.ts';
import type { TestServer } from '../support/server.ts';
import { openSse, type SseConnection, waitFor } from './sse-client.ts';

const BULK = '/ofrep/v1/evaluate/flags';
const context = { context: { targetingKey: 'user-1', country: 'NL' } };

describeEachDatabase('OFREP event streams (SSE)', (database) => {
  let api: TestServer;
  let key: string;
  const logLines: string[] = [];
  const open: SseConnection[] = [];

  beforeAll(async () => {
    const stream = collectLines(logLines);
    api = await startServer(database, {
      accessControl: UNLIMITED,
      logger: { level: 'debug', stream, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    });
    await seedVariedProject(api);
    key = await createKey(api, { role: 'evaluator', environments: ['production'] });
  });
  afterAll(async () => {
    for (const connection of open) connection.close();
    await api?.close();
  });

  async function streamUrl(secret = key): Promise<string> {
    const bulk = await api.call('POST', BULK, { key: secret, body: context });
    expect(bulk.status).toBe(200);
    const [stream] = bulk.body.eventStreams;
    return stream.url;
  }

  async function connect(url: string, headers?: Record<string, string>): Promise<SseConnection> {
    const connection = await openSse(url, headers);
    open.push(connection);
    return connection;
  }

  const patchBanner = async (variant: string) => {
    const id = await flagId(api, 'banner-text');
    const res = await api.call('PATCH', `/v1/flags/${id}`, { body: { defaultVariant: variant } });
    expect(res.status).toBe(200);
  };

  it('advertises an absolute SSE URL that carries a token, never the key', async () => {
    const bulk = await api.call('POST', BULK, { key, body: context });
    expect(bulk.body.eventStreams).toEqual([
      {
        type: 'sse',
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/ofrep\/v1\/events\?token=/),
        inactivityDelaySec: 120,
      },
    ]);
    const url: string = bulk.body.eventStreams[0].url;
    expect(url).not.toContain(key);
    expect(url).not.toContain(key.slice(4, 20));
    expect(url).not.toContain(hashSecret(key));
    // The same URL all hour long, so the response stays cacheable: a second request is a 304.
    const again = await api.call('POST', BULK, {
      key,
      body: context,
      headers: { 'if-none-match': bulk.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
  });

  it('builds the stream URL from the listening address, never from a forged Host or X-Forwarded-Host header', async () => {
    const { port } = new URL(api.url);
    const body = JSON.stringify(context);
    const raw = await new Promise<string>((resolve, reject) => {
      const forged = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: BULK,
          headers: {
            host: 'attacker.example',
            'x-forwarded-host': 'attacker.example',
            'x-forwarded-proto': 'https',
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () => resolve(text));
        },
      );
      forged.on('error', reject);
      forged.end(body);
    });
    const url: string = JSON.parse(raw).eventStreams[0].url;
    expect(url).not.toContain('attacker');
    expect(url.startsWith(`http://127.0.0.1:${port}/ofrep/v1/events?token=`)).toBe(true);
  });

  it('builds the stream URL from FLAGSTAFF_PUBLIC_URL when it is set', async () => {
    expect(loadConfig({ FLAGSTAFF_PUBLIC_URL: 'https://flags.example.com/' }).publicUrl).toBe(
      'https://flags.example.com',
    );
    expect(() => loadConfig({ FLAGSTAFF_PUBLIC_URL: 'flags.example.com' })).toThrow(/FLAGSTAFF_PUBLIC_URL/);
    const behindProxy = await startServer(database, {
      accessControl: UNLIMITED,
      publicUrl: 'https://flags.example.com',
    });
    try {
      const bulk = await behindProxy.call('POST', BULK, {
        body: context,
        headers: { host: 'attacker.example', 'x-flagstaff-project': 'default' },
      });
      expect(bulk.status).toBe(200);
      expect(bulk.body.eventStreams[0].url).toMatch(
        /^https:\/\/flags\.example\.com\/ofrep\/v1\/events\?token=/,
      );
    } finally {
      await behindProxy.close();
    }
  });

  it('sends refetchEvaluation with the revision as etag when a flag changes', async () => {
    const stream = await connect(await streamUrl());
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await patchBanner('long');
    const [event] = await stream.waitForEvents(1);
    const data = JSON.parse(event?.data ?? '');
    expect(data).toEqual({ type: 'refetchEvaluation', etag: event?.id, lastModified: expect.any(Number) });
    // The refetch it prompts, with the event's metadata, sees the change.
    const refetched = await api.call(
      'POST',
      `${BULK}?flagConfigEtag=${data.etag}&flagConfigLastModified=${data.lastModified}`,
      {
        key,
        body: context,
      },
    );
    expect(refetched.status).toBe(200);
    expect(refetched.body.flags).toContainEqual(
      expect.objectContaining({ key: 'banner-text', value: 'Hello there' }),
    );
    stream.close();
  });

  it('tells a client that reconnects with an older Last-Event-ID to refetch at once', async () => {
    const url = await streamUrl();
    const first = await connect(url);
    const seen = Number(await first.waitForId());
    first.close();
    await patchBanner('short');
    const again = await connect(url, { 'last-event-id': String(seen) });
    const [event] = await again.waitForEvents(1);
    expect(JSON.parse(event?.data ?? '').type).toBe('refetchEvaluation');
    expect(Number(event?.id)).toBeGreaterThan(seen);
    again.close();
  });

  it('refuses tampered, expired and unknown tokens with 401', async () => {
    const url = new URL(await streamUrl());
    const token = url.searchParams.get('token') ?? '';
    const [payload, signature] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const otherEnvironment = Buffer.from(
      JSON.stringify([claims[0], claims[1], 'development', claims[3]]),
    ).toString('base64url');
    const expired = signStreamToken(
      {
        keyId: claims[0],
        projectId: claims[1],
        environment: 'production',
        expiresAt: Math.floor(Date.now() / 1000) - 1,
      },
      hashSecret(key),
    );
    const signedByOther = signStreamToken(
      { keyId: claims[0], projectId: claims[1], environment: 'production', expiresAt: claims[3] },
      hashSecret('fsk_not-the-key'),
    );
    for (const bad of [
      `${otherEnvironment}.${signature}`,
      `${payload}.${signature.slice(1)}x`,
      expired,
      signedByOther,
      'nonsense',
      '',
    ]) {
      url.searchParams.set('token', bad);
      const res = await fetch(url);
      expect(res.status, bad).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    }
  });

  it('ends the stream when its key is revoked, and refuses the URL after', async () => {
    const res = await api.call('POST', '/v1/projects/default/api-keys', {
      body: { name: 'revoked soon', role: 'evaluator' },
    });
    const url = await streamUrl(res.body.secret);
    const stream = await connect(url);
    expect(stream.status).toBe(200);
    expect((await api.call('DELETE', `/v1/api-keys/${res.body.id}`)).status).toBe(204);
    await stream.ended;
    expect((await fetch(url)).status).toBe(401);
  });

  it('logs the handshake as a completed 200 request, and forgets a stream its client closes', async () => {
    const before = api.realtime.eventStreams.size;
    const stream = await connect(await streamUrl());
    await stream.waitForId();
    expect(api.realtime.eventStreams.size).toBe(before + 1);
    const handshake = logLines
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === 'request' && String(line.url).startsWith('/ofrep/v1/events'));
    expect(handshake).toMatchObject({ method: 'GET', statusCode: 200 });
    stream.close();
    await waitFor(() => api.realtime.eventStreams.size === before, 'the closed stream to be forgotten');
  });

  it('opens no stream for HEAD', async () => {
    const url = await streamUrl();
    const before = api.realtime.eventStreams.size;
    const res = await fetch(url, { method: 'HEAD' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(api.realtime.eventStreams.size).toBe(before);
  });

  it('answers CORS for the stream so pages on other origins can open it', async () => {
    const stream = await connect(await streamUrl(), { origin: 'https://app.example' });
    expect(stream.headers.get('access-control-allow-origin')).toBe('*');
    stream.close();
  });

  it('logs neither the stream token nor the key', async () => {
    const url = await streamUrl();
    const stream = await connect(url);
    stream.close();
    const token = new URL(url).searchParams.get('token') ?? '';
    const log = logLines.join('');
    expect(log).toContain('/ofrep/v1/events?token=[redacted]');
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[1]);
    expect(log).not.toContain(key);
    expect(log).not.toContain(hashSecret(key));
  });
});

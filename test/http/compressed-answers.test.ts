import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressedBodies } from '../../src/http/compressed-answers.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';

// Bulk answers in br or gzip when the client asks (decision 2001): the OFREP bulk evaluation,
// the flagd export and the flag list. Requests go through app.inject, which hands back the bytes
// as sent (fetch would decompress them on the way).

const BULK = '/ofrep/v1/evaluate/flags';
const EXPORT = '/v1/projects/default/environments/production/flagd';
const LIST = '/v1/projects/default/flags';
const decompress = { br: brotliDecompressSync, gzip: gunzipSync } as const;

describe('compressed bulk answers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    for (let i = 0; i < 30; i++) {
      await callAsAdmin(server, 'POST', '/v1/projects/default/flags', {
        key: `compressed-${i}`,
        name: `A flag whose answer repeats itself ${i}`,
      });
    }
  });
  afterAll(() => server.close());

  const request = (url: string, headers: Record<string, string> = {}) =>
    server.app.inject({
      method: url === BULK ? 'POST' : 'GET',
      url,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-flagstaff-project': 'default', ...headers },
      ...(url === BULK ? { payload: { context: { targetingKey: 'user-1' } } } : {}),
    });

  describe.each([BULK, EXPORT, LIST])('%s', (url) => {
    it.each(['br', 'gzip'] as const)('sends %s that decompresses to the exact plain body', async (coding) => {
      const plain = await request(url);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      const coded = await request(url, { 'accept-encoding': coding });
      expect(coded.statusCode).toBe(200);
      expect(coded.headers['content-encoding']).toBe(coding);
      expect(coded.headers.vary).toMatch(/accept-encoding/i);
      expect(coded.rawPayload.length).toBeLessThan(plain.rawPayload.length);
      expect(decompress[coding](coded.rawPayload).toString('utf8')).toBe(plain.body);
    });
  });

  it('compresses a body once per ETag and coding, and reuses it', async () => {
    // A flag more: a bulk answer no other test has asked for.
    await callAsAdmin(server, 'POST', '/v1/projects/default/flags', { key: 'compressed-once' });
    const asked = (coding: string) => request(BULK, { 'accept-encoding': coding });
    const before = compressedBodies.made;
    const first = await asked('br');
    expect(compressedBodies.made).toBe(before + 1);
    const second = await asked('br');
    expect(compressedBodies.made).toBe(before + 1);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    await asked('gzip');
    await asked('gzip');
    expect(compressedBodies.made).toBe(before + 2);
  });

  it('gives each coding an ETag of its own, and answers any of them with 304', async () => {
    const plain = (await request(BULK)).headers.etag as string;
    const br = await request(BULK, { 'accept-encoding': 'br' });
    expect(br.headers.etag).toBe(`${plain.slice(0, -1)}-br"`);
    const again = await request(BULK, {
      'accept-encoding': 'br',
      'if-none-match': br.headers.etag as string,
    });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(br.headers.etag);
    expect(again.headers.vary).toMatch(/accept-encoding/i);
    // A client that held the plain body and now asks for gzip holds the current answer all the same.
    expect((await request(BULK, { 'accept-encoding': 'gzip', 'if-none-match': plain })).statusCode).toBe(304);
  });

  it.each([
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br, gzip', 'br'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['deflate', undefined],
    ['br;q=0, gzip;q=0', undefined],
    ['identity', undefined],
  ])('Accept-Encoding %s is answered in %s', async (accept, coding) => {
    const res = await request(BULK, { 'accept-encoding': accept });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding);
    if (coding === undefined) expect(JSON.parse(res.body).flags.length).toBeGreaterThanOrEqual(30);
  });

  it('leaves a single evaluation plain, whatever the client accepts', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: `${BULK}/compressed-1`,
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'x-flagstaff-project': 'default',
        'accept-encoding': 'br, gzip',
      },
      payload: { context: { targetingKey: 'user-1' } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body)).toMatchObject({ key: 'compressed-1' });
  });

  it('leaves an error plain', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: BULK,
      headers: { 'accept-encoding': 'br', 'x-flagstaff-project': 'default' },
      payload: { context: {} },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body)).toMatchObject({ errorCode: 'GENERAL' });
  });
});

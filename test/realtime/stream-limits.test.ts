import { afterEach, describe, expect, it } from 'vitest';
import { descriptorLimit, streamLimits } from '../../src/realtime/stream-limits.ts';
import { FakeClock } from '../access/support.ts';
import { createKey } from '../openfeature/support/varied-project.ts';
import type { TestAppOptions } from '../support/app.ts';
import { startTestServer, type TestServer, UNLIMITED } from '../support/server.ts';
import { openSse, type SseConnection } from './sse-client.ts';

const BULK = '/ofrep/v1/evaluate/flags';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(options: TestAppOptions): Promise<TestServer> {
  const started = await startTestServer(undefined, options);
  cleanups.push(() => started.close());
  return started;
}

/** The stream URL a bulk evaluation hands the key out. */
async function streamUrl(api: TestServer, key: string): Promise<string> {
  const bulk = await api.call('POST', BULK, { key, body: { context: { targetingKey: 'u' } } });
  expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
  return bulk.body.eventStreams[0].url;
}

async function open(url: string): Promise<SseConnection> {
  const connection = await openSse(url);
  cleanups.push(() => connection.close());
  return connection;
}

/** A refused handshake's status, problem code and Retry-After. */
async function refusal(url: string) {
  const response = await fetch(url);
  const body = await response.json();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    code: body.code,
    retryAfter: response.headers.get('retry-after'),
  };
}

const REFUSED = {
  status: 429,
  type: expect.stringContaining('application/problem+json'),
  code: 'rate_limited',
  retryAfter: expect.stringMatching(/^\d+$/),
};

describe('limits on event streams', () => {
  it('refuses with 429 the stream over the per-key cap, and the one over the per-node cap, and opens again once one closes', async () => {
    const api = await server({ accessControl: UNLIMITED, streamLimits: { perNode: 3, perKey: 2 } });
    const [first, second] = [
      await createKey(api, { role: 'evaluator', environments: ['production'] }),
      await createKey(api, { role: 'evaluator', environments: ['production'] }),
    ];
    const urlA = await streamUrl(api, first as string);
    const urlB = await streamUrl(api, second as string);
    const a1 = await open(urlA);
    await open(urlA);
    expect(a1.status).toBe(200);
    expect(await refusal(urlA)).toEqual(REFUSED);
    expect((await open(urlB)).status).toBe(200);
    // Three open on the node: the second key, under its own cap, is refused all the same.
    expect(await refusal(urlB)).toEqual(REFUSED);
    expect(api.realtime.eventStreams.size).toBe(3);

    a1.close();
    const deadline = Date.now() + 5000;
    while (api.realtime.eventStreams.size > 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await open(urlB)).status).toBe(200);
  });

  it("counts every handshake against the key's evaluation rate limit", async () => {
    // A clock that stands still: no token comes back, so the budget is exactly 4.
    const clock = new FakeClock();
    const api = await server({
      accessControl: { rateLimits: { evaluation: 4, management: 0 }, clock: clock.read },
    });
    const key = await createKey(api, { role: 'evaluator', environments: ['production'] });
    const url = await streamUrl(api, key);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(url);
      statuses.push(response.status);
      if (response.status === 429) expect((await response.json()).code).toBe('rate_limited');
      else cleanups.push(() => response.body?.cancel());
    }
    // One token went to the bulk evaluation: three streams open, then 429s.
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('keeps the per-node cap under the open-file limit it reads at start', () => {
    const limits = '/proc/self/limits';
    const proc = `Limit                     Soft Limit           Hard Limit           Units\nMax open files            4096                 524288               files\n`;
    expect(descriptorLimit(() => proc)).toBe(4096);
    expect(
      descriptorLimit(() => {
        throw new Error(`no ${limits}`);
      }),
    ).toBe(4096);
    expect(streamLimits({}, 4096)).toEqual({ perNode: 3072, perKey: 3072, lowered: false });
    expect(streamLimits({ perNode: 50_000 }, 20_000)).toMatchObject({ perNode: 18_976, lowered: true });
    expect(streamLimits({}, Number.POSITIVE_INFINITY)).toMatchObject({ perNode: 10_000, perKey: 5_000 });
    if (process.platform === 'linux') expect(descriptorLimit()).toBeGreaterThan(0);
  });
});

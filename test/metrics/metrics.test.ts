import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';

// Values that must never reach /metrics: a flag key, a segment key, a user's identity and attribute.
const FLAG = 'canary-flag-7f3a';
const SEGMENT = 'canary-segment-2b9d';
const USER = 'canary-user-91c2';
const EMAIL = 'canary-91c2@example.org';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of Prometheus text exposition, comments left out. */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, name, value] of (match[2] ?? '').matchAll(
        /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
      )) {
        labels[name as string] = value as string;
      }
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample with this name and (at least) these labels; undefined when none. */
function sampleValue(
  all: readonly Sample[],
  name: string,
  labels: Record<string, string>,
): number | undefined {
  const found = all.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

async function scrape(server: TestServer): Promise<{ text: string; all: Sample[] }> {
  const res = await server.call('GET', '/metrics', { key: null });
  expect(res.status).toBe(200);
  return { text: res.body as string, all: samples(res.body as string) };
}

const attributes = (value: object) => encodeURIComponent(JSON.stringify(value));

describe('/metrics', () => {
  let server: TestServer;
  let other: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    other = await startTestServer();
    const segment = await server.call('POST', '/v1/projects/default/segments', {
      body: {
        key: SEGMENT,
        name: 'Canary',
        rules: [{ type: 'attribute', attribute: 'email', operator: 'ends_with', value: '@example.org' }],
      },
    });
    expect(segment.status).toBe(201);
    const created = await server.call('POST', '/v1/projects/default/flags', {
      body: { key: FLAG, name: 'Canary', type: 'boolean' },
    });
    expect(created.status).toBe(201);
    const patched = await server.call('PATCH', `/v1/flags/${created.body.id}`, {
      body: {
        enabled: true,
        defaultVariant: 'off',
        rules: [{ segments: [SEGMENT], serve: { variant: 'on' } }],
      },
    });
    expect(patched.status).toBe(200);

    const member = attributes({ targetingKey: USER, email: EMAIL });
    const stranger = attributes({ targetingKey: USER, email: 'someone@else.test' });
    const evaluations: [string, string, unknown?][] = [
      ['GET', `/v1/flags/${FLAG}?project=default&attributes=${member}`],
      ['GET', `/v1/flags/${FLAG}?project=default&attributes=${member}`],
      ['GET', `/v1/flags/${FLAG}?project=default&attributes=${stranger}`],
      [
        'POST',
        `/v1/flags/${FLAG}/evaluate?project=default`,
        { attributes: { targetingKey: USER, email: EMAIL } },
      ],
      // Disabled in development, where a new flag starts switched off.
      ['GET', `/v1/flags/${FLAG}?project=default&environment=development&attributes=${member}`],
      // Bulk: one evaluation per flag served.
      [
        'POST',
        '/v1/evaluate?project=default',
        { environment: 'development', attributes: { targetingKey: USER } },
      ],
    ];
    for (const [method, path, body] of evaluations) {
      const res = await server.call(method, path, body === undefined ? {} : { body });
      expect(res.status, path).toBe(200);
    }
    // Refused requests are not evaluations.
    expect((await server.call('GET', '/v1/flags/no-such-flag?project=default')).status).toBe(404);
    expect((await server.call('GET', `/v1/flags/${FLAG}?project=default&environment=staging`)).status).toBe(
      404,
    );
    expect((await server.call('GET', `/v1/flags/${FLAG}?project=default`, { key: 'fsk_wrong' })).status).toBe(
      401,
    );
    expect((await server.call('GET', `/no/such/path/${USER}`)).status).toBe(404);
  });

  afterAll(async () => {
    await server?.close();
    await other?.close();
  });

  it('serves Prometheus text without an API key', async () => {
    const res = await server.call('GET', '/metrics', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('# TYPE flagstaff_evaluations_total counter');
  });

  it('counts evaluations by project key, environment and reason', async () => {
    const { all } = await scrape(server);
    const count = (environment: string, reason: string) =>
      sampleValue(all, 'flagstaff_evaluations_total', { project: 'default', environment, reason });
    expect(count('production', 'targeting')).toBe(3);
    expect(count('production', 'default')).toBe(1);
    expect(count('development', 'disabled')).toBe(2);
    expect(count('production', 'static')).toBeUndefined();
    expect(count('staging', 'default')).toBeUndefined();
    const total = all
      .filter((s) => s.name === 'flagstaff_evaluations_total')
      .reduce((sum, s) => sum + s.value, 0);
    expect(total).toBe(6);
  });

  it('measures request durations by route pattern, method and status class', async () => {
    const { all } = await scrape(server);
    const count = (route: string, method: string, statusClass: string) =>
      sampleValue(all, 'flagstaff_http_request_duration_seconds_count', {
        route,
        method,
        status_class: statusClass,
      });
    expect(count('/v1/flags/:flagKey', 'GET', '2xx')).toBe(4);
    expect(count('/v1/flags/:flagKey', 'GET', '4xx')).toBe(3);
    expect(count('/v1/flags/:flagKey/evaluate', 'POST', '2xx')).toBe(1);
    expect(count('/v1/evaluate', 'POST', '2xx')).toBe(1);
    expect(count('unmatched', 'GET', '4xx')).toBe(1);
    const sum = sampleValue(all, 'flagstaff_http_request_duration_seconds_sum', {
      route: '/v1/flags/:flagKey',
      method: 'GET',
      status_class: '2xx',
    });
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(10);
  });

  it('shows no flag key, segment key, user value or raw URL', async () => {
    const { text, all } = await scrape(server);
    for (const secret of [FLAG, SEGMENT, USER, EMAIL, 'no-such-flag', 'staging', 'fsk_', '/no/such/path']) {
      expect(text).not.toContain(secret);
    }
    const routes = new Set(all.flatMap((s) => (s.labels.route === undefined ? [] : [s.labels.route])));
    for (const route of routes) expect(route === 'unmatched' || !route.includes('?')).toBe(true);
    expect(text).not.toContain('attributes');
  });

  it('includes the default process metrics', async () => {
    const { all } = await scrape(server);
    expect(sampleValue(all, 'process_cpu_user_seconds_total', {})).toBeGreaterThan(0);
    expect(sampleValue(all, 'process_resident_memory_bytes', {})).toBeGreaterThan(0);
  });

  it('keeps the counts of each app to itself', async () => {
    const { all } = await scrape(other);
    expect(all.filter((s) => s.name === 'flagstaff_evaluations_total')).toEqual([]);
    expect(
      sampleValue(all, 'flagstaff_http_request_duration_seconds_count', { route: '/v1/flags/:flagKey' }),
    ).toBe(undefined);
  });
});

describe('/metrics while the database is down', () => {
  it('still answers, counting under the project id it cannot name', async () => {
    const server = await startTestServer();
    try {
      const created = await server.call('POST', '/v1/projects/default/flags', {
        body: { key: FLAG, name: 'Canary', type: 'boolean' },
      });
      expect(created.status).toBe(201);
      expect((await server.call('GET', `/v1/flags/${FLAG}?project=default`)).status).toBe(200);
      await server.store.close();
      const { all } = await scrape(server);
      const rows = all.filter((s) => s.name === 'flagstaff_evaluations_total');
      expect(rows).toEqual([
        {
          name: 'flagstaff_evaluations_total',
          labels: { project: created.body.projectId, environment: 'production', reason: 'disabled' },
          value: 1,
        },
      ]);
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});

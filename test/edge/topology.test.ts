import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FlagdProvider } from '@openfeature/flagd-provider';
import { type Client, OpenFeature } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEdgeConfig } from '../../src/config.ts';
import { type Edge, startEdge } from '../../src/edge/edge-node.ts';
import type { Store } from '../../src/storage/store.ts';
import { createKey } from '../access/support.ts';
import { syncSelectorOf } from '../support/flagd-sync-client.ts';
import { Core, evaluate, evaluationsCounted, median, sendEvents, storedUnits, until } from './support.ts';

/**
 * SPEC §14's topology: one core, two edges following it, a third chained behind the first. The
 * core is on PostgreSQL when FLAGSTAFF_TEST_DATABASE_URL is set (SQLite otherwise).
 */
const database = process.env.FLAGSTAFF_TEST_DATABASE_URL ? 'postgres' : 'sqlite';

const OFREP_WEB_APPLICATION = fileURLToPath(
  new URL('../realtime/fixtures/ofrep-web-in-node.ts', import.meta.url),
);

/**
 * An application using the official OFREP web provider (web SDK, SSE event stream, no polling),
 * in a process of its own, pointed at `origin`: the value of `banner` it last reported.
 */
function ofrepWebApplication(origin: string, key: string): { child: ChildProcess; banner?: unknown } {
  const child = spawn(
    process.execPath,
    ['--experimental-eventsource', OFREP_WEB_APPLICATION, origin, key, 'banner'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const application: { child: ChildProcess; banner?: unknown } = { child };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    application.banner = (JSON.parse(line) as { banner: unknown }).banner;
  });
  return application;
}

describe(`edges following a core (${database})`, () => {
  let core: Core;
  let store: Store;
  let projectId: string;
  let flagId: string;
  let client: string;
  let clientId: string;
  let edgeKey: string;
  let outsideKey: string;
  /** A project made after the core started: nothing on the core has evaluated it. */
  let betaId: string;
  const caches: string[] = [];
  const edges: Edge[] = [];
  /** The applications: the OFREP web provider on the chained edge, flagd in-process on the first. */
  let ofrepWeb: ReturnType<typeof ofrepWebApplication>;
  let flagd: Client;
  const flagdValue = () => flagd.getBooleanValue('banner', false, { targetingKey: 'user-1' });

  const edgeAt = (index: number, upstreamUrl: string, key = edgeKey) => {
    caches[index] ??= mkdtempSync(join(tmpdir(), 'flagstaff-edge-'));
    const config = loadEdgeConfig({
      FLAGSTAFF_UPSTREAM_URL: upstreamUrl,
      FLAGSTAFF_EDGE_KEY: key,
      FLAGSTAFF_EDGE_CACHE: caches[index],
      FLAGSTAFF_PORT: '0',
      FLAGSTAFF_DATABASE_URL: 'sqlite::memory:',
    });
    // The first edge serves flagd gRPC sync too, on a port of its choosing. The core and the edges
    // share this process's server secret: the core's sync credentials work on the edge.
    return startEdge(index === 0 ? { ...config, flagdSyncPort: 0 } : config, {
      logger: false,
      flushIntervalMs: 100,
      silenceMs: 2_000,
      refused: () => undefined,
    });
  };

  beforeAll(async () => {
    core = await Core.open(database);
    store = core.store;
    const node = await core.start();
    projectId = (await store.findProject('default'))?.id as string;
    const flag = await node.call('POST', '/v1/projects/default/flags', { body: { key: 'banner' } });
    flagId = flag.body.id;
    const clientKey = await createKey(node.services, projectId, 'evaluator');
    client = clientKey.secret;
    clientId = clientKey.id;
    edgeKey = (await createKey(node.services, projectId, 'edge')).secret;
    const beta = await node.call('POST', '/v1/projects', { body: { key: 'beta', name: 'Beta' } });
    betaId = beta.body.id;
    outsideKey = (await createKey(node.services, betaId, 'evaluator')).secret;
    edges.push(await edgeAt(0, core.url), await edgeAt(1, core.url));
    edges.push(await edgeAt(2, edges[0]?.origin as string));

    ofrepWeb = ofrepWebApplication(edges[2]?.origin as string, client);
    const provider = new FlagdProvider({
      resolverType: 'in-process',
      host: '127.0.0.1',
      port: edges[0]?.flagdSyncPort as number,
      selector: await syncSelectorOf((method, path) => node.call(method, path), clientId, 'production'),
    });
    await OpenFeature.setProviderAndWait('topology', provider);
    flagd = OpenFeature.getClient('topology');
    await until(async () => ofrepWeb.banner === false, 15_000, 'the OFREP web provider');
  }, 60_000);

  afterAll(async () => {
    ofrepWeb?.child.kill();
    await OpenFeature.clearProviders();
    // The chained edge first, so that no edge is left retrying an upstream that went.
    for (const edge of [...edges].reverse()) await edge.close();
    await core?.close();
    for (const dir of caches) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the core’s flags on every edge, the chained one too', async () => {
    for (const edge of edges)
      expect(await evaluate(edge.origin, client)).toEqual({ status: 200, value: false });
  });

  it('serves OFREP bulk with an ETag and its event stream on an edge', async () => {
    const bulk = (etag?: string) =>
      fetch(`${edges[2]?.origin}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${client}`,
          'content-type': 'application/json',
          ...(etag === undefined ? {} : { 'if-none-match': etag }),
        },
        body: '{"context":{"targetingKey":"user-1"}}',
      });
    const first = await bulk();
    expect(first.status).toBe(200);
    const body = (await first.json()) as { flags: { key: string }[]; eventStreams: { url: string }[] };
    expect(body.flags.map((flag) => flag.key)).toContain('banner');
    expect((await bulk(first.headers.get('etag') ?? '')).status).toBe(304);
    const controller = new AbortController();
    const stream = await fetch(body.eventStreams[0]?.url as string, { signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    controller.abort();
  });

  it('brings a change on the core to every edge and the applications behind them (p50 printed)', async () => {
    const toEdges: number[] = [];
    const toOfrepWeb: number[] = [];
    const toFlagd: number[] = [];
    for (let round = 0; round < 6; round++) {
      const on = round % 2 === 0;
      const changed = await core.node.call('PATCH', `/v1/flags/${flagId}`, {
        body: { enabled: true, defaultVariant: on ? 'on' : 'off' },
      });
      expect(changed?.status).toBe(200);
      const changedAt = performance.now();
      const seen = async (check: () => Promise<boolean>, what: string) => {
        await until(check, 5_000, what);
        return performance.now() - changedAt;
      };
      const [edgeTimes, [ofrepWebTime, flagdTime]] = await Promise.all([
        Promise.all(
          edges.map((edge) =>
            seen(async () => (await evaluate(edge.origin, client)).value === on, 'an edge'),
          ),
        ),
        Promise.all([
          seen(async () => ofrepWeb.banner === on, 'the OFREP web provider (chained edge)'),
          seen(async () => (await flagdValue()) === on, 'the flagd in-process provider'),
        ]),
      ]);
      toEdges.push(...edgeTimes);
      toOfrepWeb.push(ofrepWebTime as number);
      toFlagd.push(flagdTime as number);
    }
    const p50 = (values: readonly number[]) => `${median(values).toFixed(1)} ms`;
    console.info(
      `edge topology (${database}), change on the core → p50: the edges ${p50(toEdges)}; an application with the OFREP web provider (SSE) on the chained edge ${p50(toOfrepWeb)} (50 ms of it the provider's own debounce of SSE events); one with the flagd in-process provider on the first edge ${p50(toFlagd)}; both ${p50([...toOfrepWeb, ...toFlagd])}`,
    );
  });

  it('stops an edge started with a wrong key, or a key without the edge role, naming FLAGSTAFF_EDGE_KEY', async () => {
    for (const key of ['fsk_wrong', client]) {
      const config = loadEdgeConfig({
        FLAGSTAFF_UPSTREAM_URL: core.url,
        FLAGSTAFF_EDGE_KEY: key,
        FLAGSTAFF_EDGE_CACHE: mkdtempSync(join(tmpdir(), 'flagstaff-edge-wrong-')),
        FLAGSTAFF_PORT: '0',
        FLAGSTAFF_DATABASE_URL: 'sqlite::memory:',
      });
      caches.push(config.edgeCache);
      await expect(startEdge(config, { logger: false })).rejects.toThrow(
        /^FLAGSTAFF_EDGE_KEY was refused by/,
      );
    }
  });

  it('refuses, on the edges, a client key outside the edge key’s scope', async () => {
    for (const edge of edges) expect((await evaluate(edge.origin, outsideKey)).status).toBe(401);
    // The core itself serves that key.
    expect((await evaluate(core.url, outsideKey)).status).not.toBe(401);
  });

  it('serves a project made after the core started to an edge of its own', async () => {
    const flag = await core.node.call('POST', '/v1/projects/beta/flags', { body: { key: 'banner' } });
    expect(flag.status).toBe(201);
    const betaEdgeKey = (await createKey(core.node.services, betaId, 'edge')).secret;
    const betaEdge = await edgeAt(3, core.url, betaEdgeKey);
    edges.push(betaEdge);
    expect(await evaluate(betaEdge.origin, outsideKey)).toEqual({ status: 200, value: false });
    await betaEdge.close();
    edges.pop();

    // And to an organisation-wide edge key, within a second of the project's creation.
    const gamma = await core.node.call('POST', '/v1/projects', { body: { key: 'gamma', name: 'Gamma' } });
    expect(
      (await core.node.call('POST', '/v1/projects/gamma/flags', { body: { key: 'banner' } })).status,
    ).toBe(201);
    const gammaKey = (await createKey(core.node.services, gamma.body.id, 'evaluator')).secret;
    const everywhere = await edgeAt(4, core.url, (await createKey(core.node.services, null, 'edge')).secret);
    edges.push(everywhere);
    await until(async () => (await evaluate(everywhere.origin, gammaKey)).status === 200, 3_000, 'gamma');
    expect(await evaluate(everywhere.origin, gammaKey)).toEqual({ status: 200, value: false });
    expect(await evaluate(everywhere.origin, client)).toEqual({ status: 200, value: false });
    await everywhere.close();
    edges.pop();
  });

  it('refuses an edge key on the core’s management routes, and names the upstream on an edge’s', async () => {
    const listed = await core.node.call('GET', '/v1/projects/default/flags', { key: edgeKey });
    expect(listed?.status).toBe(403);
    expect(listed?.body.code).toBe('forbidden');
    const onEdge = await fetch(`${edges[0]?.origin}/v1/projects/default/flags`, {
      headers: { authorization: `Bearer ${client}` },
    });
    expect(onEdge.status).toBe(404);
    expect(onEdge.headers.get('content-type')).toMatch(/problem\+json/);
    expect(((await onEdge.json()) as { detail: string }).detail).toContain(core.url);
  });

  it('refuses a key revoked on the core on every edge within 1 s', async () => {
    const doomed = await createKey(core.node.services, projectId, 'evaluator');
    for (const edge of edges) {
      await until(
        async () => (await evaluate(edge.origin, doomed.secret)).status === 200,
        5_000,
        'the new key',
      );
    }
    expect((await core.node.call('DELETE', `/v1/api-keys/${doomed.id}`))?.status).toBe(204);
    const revokedAt = performance.now();
    for (const edge of edges) {
      await until(
        async () => (await evaluate(edge.origin, doomed.secret)).status === 401,
        1_000 - (performance.now() - revokedAt),
        'the revocation',
      );
    }
  });

  it('keeps answering with the core stopped, restarts from its cache, forwards once the core returns', async () => {
    const flagNow = (await evaluate(edges[0]?.origin as string, client)).value;
    await core.stop();
    for (const edge of edges) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => evaluate(edge.origin, client)));
      expect(answers.filter((a) => a.status === 200 && a.value === flagNow)).toHaveLength(50);
    }
    expect(await flagdValue()).toBe(flagNow);
    expect(ofrepWeb.banner).toBe(flagNow);

    // Events sent to an edge while the core is down: one with an id sent twice, one without.
    const events = [
      { name: 'checkout', context: { targetingKey: 'user-1' }, id: 'evt-once' },
      { name: 'checkout', context: { targetingKey: 'user-2' } },
    ];
    await sendEvents(edges[2]?.origin as string, client, events);
    await sendEvents(edges[2]?.origin as string, client, [events[0] as object]);

    // An edge restarted while the core is down starts from its cache.
    await edges[1]?.close();
    edges[1] = await edgeAt(1, core.url);
    expect(await evaluate(edges[1].origin, client)).toEqual({ status: 200, value: flagNow });

    // The core returns: the edges catch up with a change made there, and the events arrive once.
    const node = await core.start(1);
    const changed = await node.call('PATCH', `/v1/flags/${flagId}`, {
      body: { enabled: true, defaultVariant: flagNow === true ? 'off' : 'on' },
    });
    expect(changed.status).toBe(200);
    for (const edge of edges) {
      await until(
        async () => (await evaluate(edge.origin, client)).value === (flagNow !== true),
        30_000,
        'catch-up',
      );
    }
    await until(async () => ofrepWeb.banner === (flagNow !== true), 30_000, 'catch-up (OFREP web)');
    await until(async () => (await flagdValue()) === (flagNow !== true), 30_000, 'catch-up (flagd)');
    await until(
      async () => (await storedUnits(store, projectId, 'checkout')).length >= 2,
      30_000,
      'the forwarded events',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await storedUnits(store, projectId, 'checkout')).toEqual(['user-1', 'user-2']);
    // The evaluations the edges served while the core was down are in the core's insights too,
    // the chained edge's through the edge in front of it.
    await until(
      async () => (await evaluationsCounted(store, projectId)) >= 150,
      30_000,
      'the forwarded counts',
    );
  }, 90_000);
});

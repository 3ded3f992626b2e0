import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadEdgeConfig } from '../../src/config.ts';
import { startEdge } from '../../src/edge/edge-node.ts';
import { ForwardingOutbox } from '../../src/edge/forwarding-outbox.ts';
import { SnapshotCache } from '../../src/edge/snapshot-cache.ts';
import type { MirrorState } from '../../src/edge/upstream-mirror.ts';

const QUIET = { info() {}, warn() {} };
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-edge-start-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const STATE: MirrorState = { projects: [], keys: [] };
const ENV = {
  FLAGSTAFF_UPSTREAM_URL: 'http://127.0.0.1:9',
  FLAGSTAFF_EDGE_KEY: 'fsk_not_checked_here',
  FLAGSTAFF_PORT: '0',
  FLAGSTAFF_DATABASE_URL: 'sqlite::memory:',
};

describe('an edge’s configuration', () => {
  it.each(['FLAGSTAFF_UPSTREAM_URL', 'FLAGSTAFF_EDGE_KEY', 'FLAGSTAFF_EDGE_CACHE'])(
    'stops with one line naming %s when it is missing',
    (name) => {
      const env: Record<string, string> = { ...ENV, FLAGSTAFF_EDGE_CACHE: '/tmp/x' };
      delete env[name];
      expect(() => loadEdgeConfig(env)).toThrow(ConfigError);
      expect(() => loadEdgeConfig(env)).toThrow(new RegExp(`^${name} must be set`));
    },
  );

  it('refuses an upstream that is not an http(s) URL', () => {
    expect(() =>
      loadEdgeConfig({ ...ENV, FLAGSTAFF_EDGE_CACHE: '/tmp/x', FLAGSTAFF_UPSTREAM_URL: 'core:8080' }),
    ).toThrow(/^FLAGSTAFF_UPSTREAM_URL must be an http\(s\) URL/);
  });

  it('stops naming FLAGSTAFF_EDGE_CACHE when the cache cannot be written', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const config = loadEdgeConfig({ ...ENV, FLAGSTAFF_EDGE_CACHE: join(file, 'cache') });
    await expect(startEdge(config, { logger: false })).rejects.toThrow(
      /^FLAGSTAFF_EDGE_CACHE .* is not a writable directory/,
    );
  });
});

/** An upstream that answers the edge stream as `answer` says: a status, or an SSE body. */
async function fakeUpstream(answer: () => { status: number; body?: string }) {
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests++;
    const { status, body } = answer();
    response.writeHead(status, body === undefined ? {} : { 'content-type': 'text/event-stream' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('an edge’s upstream at start', () => {
  const edgeOf = (url: string, lines?: string[]) =>
    startEdge(loadEdgeConfig({ ...ENV, FLAGSTAFF_UPSTREAM_URL: url, FLAGSTAFF_EDGE_CACHE: tempDir() }), {
      logger:
        lines === undefined
          ? false
          : { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line).msg) } },
    });

  it('stops naming FLAGSTAFF_UPSTREAM_URL when upstream serves no edge stream (another program, an old version)', async () => {
    const upstream = await fakeUpstream(() => ({ status: 404 }));
    try {
      await expect(edgeOf(upstream.url)).rejects.toThrow(
        /^FLAGSTAFF_UPSTREAM_URL http:\/\/127\.0\.0\.1:\d+ serves no edge stream \(404\)/,
      );
    } finally {
      await upstream.close();
    }
  });

  it('stops naming FLAGSTAFF_UPSTREAM_URL when upstream speaks another edge protocol', async () => {
    const upstream = await fakeUpstream(() => ({
      status: 200,
      body: 'event: hello\ndata: {"protocol":99}\n\n',
    }));
    try {
      await expect(edgeOf(upstream.url)).rejects.toThrow(
        /^FLAGSTAFF_UPSTREAM_URL http:\/\/127\.0\.0\.1:\d+ speaks edge protocol 99, this edge 1/,
      );
    } finally {
      await upstream.close();
    }
  });

  it('logs once and retries while upstream fails (no cache: it does not listen meanwhile)', async () => {
    let status = 503;
    const upstream = await fakeUpstream(() => ({ status }));
    const lines: string[] = [];
    try {
      let started = false;
      const starting = edgeOf(upstream.url, lines).then(() => {
        started = true;
      });
      starting.catch(() => undefined);
      for (let waited = 0; upstream.requests() < 3 && waited < 10_000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(upstream.requests()).toBeGreaterThanOrEqual(3);
      expect(started).toBe(false);
      expect(lines).toEqual(['upstream unreachable; retrying (listening once the first snapshot arrives)']);
      // Ends the retries: a refusal stops the start.
      status = 404;
      await expect(starting).rejects.toThrow(/^FLAGSTAFF_UPSTREAM_URL/);
    } finally {
      await upstream.close();
    }
  });
});

describe('the snapshot cache', () => {
  it('reads back what it wrote, and refuses a file changed behind its back', async () => {
    const dir = tempDir();
    const cache = new SnapshotCache(dir);
    expect(await cache.read()).toEqual({ kind: 'absent' });
    await cache.save({ ...STATE, keys: [] });
    expect((await cache.read()).kind).toBe('loaded');
    const text = readFileSync(cache.path, 'utf8');
    writeFileSync(cache.path, text.replace('keys\\":[]', 'keys\\":[1]'));
    expect(await cache.read()).toEqual({ kind: 'refused', reason: 'its checksum does not match' });
    writeFileSync(cache.path, text.slice(0, 20));
    expect(await cache.read()).toEqual({ kind: 'refused', reason: 'it is not JSON' });
  });

  it('refuses a corrupt cache with one clear log line and waits for upstream', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'snapshot.json'), '{"protocol":1,"checksum":"0","body":"{}"}');
    const lines: string[] = [];
    const config = loadEdgeConfig({ ...ENV, FLAGSTAFF_EDGE_CACHE: dir });
    let started = false;
    const starting = startEdge(config, {
      logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } },
    }).then((edge) => {
      started = true;
      return edge;
    });
    const refusedLines = () =>
      lines.map((line) => JSON.parse(line).msg).filter((msg) => /FLAGSTAFF_EDGE_CACHE/.test(msg));
    for (let waited = 0; refusedLines().length === 0 && waited < 10_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Upstream (port 9) never answers: the edge waits for it rather than serve the refused cache.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started).toBe(false);
    const refused = refusedLines();
    expect(refused).toEqual([
      'FLAGSTAFF_EDGE_CACHE: the cached snapshot is refused (its checksum does not match); waiting for upstream',
    ]);
    void starting;
  });
});

describe('the forwarding outbox', () => {
  it('keeps at most its bound on disk while upstream is away, counting what it dropped', async () => {
    let dropped = 0;
    const outbox = new ForwardingOutbox({
      directory: tempDir(),
      maxBatches: 2,
      send: async () => {
        throw new Error('upstream away');
      },
      log: QUIET,
      dropped: (items) => {
        dropped += items;
      },
    });
    await outbox.open();
    const count = (n: number) => ({
      projectId: 'p',
      flagKey: 'f',
      environment: 'e',
      minute: n,
      variant: null,
      reason: 'STATIC',
      count: 1,
    });
    await outbox.add({ counts: [count(1), count(2), count(3)] });
    await outbox.add({ counts: [count(4)] });
    await outbox.add({ counts: [count(5)] });
    expect(outbox.waiting).toBe(2);
    expect(dropped).toBe(3);
  });

  it('sends what a previous run left on disk, once', async () => {
    const directory = tempDir();
    const first = new ForwardingOutbox({
      directory,
      send: async () => 'taken',
      log: QUIET,
      dropped: () => undefined,
    });
    await first.open();
    await first.add({
      events: [
        {
          id: 'e1',
          name: 'n',
          unit: 'u',
          context: {},
          value: null,
          details: null,
          timestamp: 1,
          projectId: 'p',
          environment: 'e',
        },
      ],
    });
    const sent: string[] = [];
    const second = new ForwardingOutbox({
      directory,
      send: async (batch) => {
        sent.push(...batch.events.map((e) => e.id));
        return 'taken';
      },
      log: QUIET,
      dropped: () => undefined,
    });
    await second.open();
    second.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await second.close();
    expect(sent).toEqual(['e1']);
    expect(second.waiting).toBe(0);
  });
});

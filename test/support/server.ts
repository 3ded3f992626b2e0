import type { FastifyInstance } from 'fastify';
import type { Node } from '../../src/main.ts';
import type { Realtime } from '../../src/realtime/realtime.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import type { Services } from '../../src/services/services.ts';
import type { Store } from '../../src/storage/store.ts';
import { buildTestApp, type TestAppOptions } from './app.ts';
import { type TestDatabase, testDatabases } from './database.ts';

const [sqlite] = testDatabases() as [TestDatabase];

export const ADMIN_KEY = 'fsk_test-admin-key-0123456789abcdefghijklmnop';

export interface TestServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly services: Services;
  /** The node behind the app: its plane and admission too. */
  readonly node: Node;
  /** The node's OFREP event streams. */
  readonly realtime: Realtime;
  /** The store behind the services, for tests that look at or break the database directly. */
  readonly store: Store;
  /** fetch against the server with the admin key unless `key` says otherwise (null: no Authorization). */
  call(method: string, path: string, options?: CallOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface CallOptions {
  readonly body?: unknown;
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
  readonly body: any;
}

/** No rate limits: most suites test behaviour or send thousands of requests to compare answers; test/access tests the limits. */
export const UNLIMITED: NonNullable<TestAppOptions['accessControl']> = {
  rateLimits: { evaluation: 0, management: 0 },
};

/**
 * A real server on a free port over a fresh database (default: in-memory SQLite), bootstrapped with
 * ADMIN_KEY, with app options of the test's choosing (default: no rate limits).
 */
export async function startTestServer(
  database: TestDatabase = sqlite,
  options: TestAppOptions = { accessControl: UNLIMITED },
): Promise<TestServer> {
  const opened = await database.open();
  const store: Store = opened.store;
  await bootstrap(store, ADMIN_KEY);
  const { app, node } = await buildTestApp(store, options);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    app,
    services: node.services,
    node,
    realtime: node.realtime,
    store,
    async call(method, path, { body, key = ADMIN_KEY, headers = {} } = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      const h = init.headers as Record<string, string>;
      if (key !== null) h.authorization = `Bearer ${key}`;
      if (body !== undefined) {
        h['content-type'] ??= 'application/json';
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
      }
      const response = await fetch(`${address}${path}`, init);
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {}
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async close() {
      await app.close();
      await opened.close();
    },
  };
}

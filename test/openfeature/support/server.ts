import { type AppOptions, buildApp } from '../../../src/http/build-app.ts';
import { bootstrap } from '../../../src/services/bootstrap.ts';
import { createServices } from '../../../src/services/services.ts';
import { type TestDatabase, testDatabases } from '../../support/database.ts';
import { ADMIN_KEY, type TestServer } from '../../support/server.ts';

const [sqlite] = testDatabases() as [TestDatabase];

/** No rate limits: these suites send thousands of requests to compare answers, not to test limits. */
export const UNLIMITED: NonNullable<AppOptions['accessControl']> = {
  rateLimits: { evaluation: 0, management: 0 },
};

/**
 * Like test/support/server.ts's startTestServer (same `call`), with app options of the test's
 * choosing: by default no rate limits.
 */
export async function startServer(
  database: TestDatabase = sqlite,
  options: Omit<AppOptions, 'services'> = { accessControl: UNLIMITED },
): Promise<TestServer> {
  const opened = await database.open();
  await bootstrap(opened.store, ADMIN_KEY);
  const services = createServices(opened.store);
  const app = await buildApp({ services, ...options });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    app,
    services,
    store: opened.store,
    async call(method, path, { body, key = ADMIN_KEY, headers = {} } = {}) {
      const h: Record<string, string> = { ...headers };
      if (key !== null) h.authorization = `Bearer ${key}`;
      const init: RequestInit = { method, headers: h };
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

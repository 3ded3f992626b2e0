import { createServer, type IncomingMessage } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { ADMIN_KEY } from '../access/support.ts';
import { buildTestApp } from '../support/app.ts';
import { testDatabases } from '../support/database.ts';

interface Received {
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An OTLP/HTTP collector in the test: keeps every request it receives. */
async function startReceiver(): Promise<{ endpoint: string; received: Received[] }> {
  const received: Received[] = [];
  const read = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString();
  };
  const server = createServer(async (request, response) => {
    received.push({
      path: request.url ?? '',
      contentType: request.headers['content-type'] ?? '',
      body: await read(request),
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return { endpoint: `http://127.0.0.1:${port}`, received };
}

interface OtlpAttribute {
  readonly key: string;
  readonly value: Record<string, unknown>;
}
interface OtlpSpan {
  readonly name: string;
  readonly attributes: OtlpAttribute[];
  readonly events?: { name: string; attributes: OtlpAttribute[] }[];
}

const spansOf = (received: Received[]): OtlpSpan[] =>
  received.flatMap((r) =>
    JSON.parse(r.body).resourceSpans.flatMap((rs: { scopeSpans: { spans: OtlpSpan[] }[] }) =>
      rs.scopeSpans.flatMap((ss) => ss.spans),
    ),
  );
const attribute = (attributes: OtlpAttribute[], key: string) =>
  attributes.find((a) => a.key === key)?.value.stringValue;

it('sends a span per request with the evaluation per the feature-flag conventions, and no context attributes', async () => {
  const { endpoint, received } = await startReceiver();
  const opened = await testDatabases()[0]?.open();
  if (opened === undefined) throw new Error('no database');
  cleanups.push(() => opened.close());
  await bootstrap(opened.store, ADMIN_KEY);
  const { app } = await buildTestApp(opened.store, {
    telemetry: { endpoint, serviceName: 'flagstaff-test' },
  });
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const created = await app.inject({
    method: 'POST',
    url: '/v1/projects/default/flags',
    headers,
    payload: { key: 'new-checkout' },
  });
  expect(created.statusCode).toBe(201);
  const context = { targetingKey: 'user-7f3a', email: 'secret-person@example.com', plan: 'enterprise-xyz' };
  const evaluated = await app.inject({
    method: 'POST',
    url: '/v1/flags/new-checkout/evaluate?project=default',
    headers,
    payload: { environment: 'production', attributes: context },
  });
  expect(evaluated.statusCode).toBe(200);
  await app.close(); // flushes the spans

  expect(received.map((r) => r.path)).toContain('/v1/traces');
  const spans = spansOf(received);
  const span = spans.find((s) => attribute(s.attributes, 'feature_flag.key') === 'new-checkout');
  expect(span?.name).toBe('POST /v1/flags/:flagKey/evaluate');
  expect(attribute(span?.attributes ?? [], 'feature_flag.result.variant')).toBe('off');
  expect(attribute(span?.attributes ?? [], 'feature_flag.result.reason')).toBe('disabled');
  expect(attribute(span?.attributes ?? [], 'url.path')).toBe('/v1/flags/new-checkout/evaluate');
  const event = span?.events?.find((e) => e.name === 'feature_flag.evaluation');
  expect(attribute(event?.attributes ?? [], 'feature_flag.key')).toBe('new-checkout');
  // Nothing of the user's context leaves the server, under any attribute name.
  const everything = received.map((r) => r.body).join('\n');
  for (const value of Object.values(context)) expect(everything).not.toContain(value);
  expect(everything).not.toContain('feature_flag.context');
});

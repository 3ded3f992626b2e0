import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusClient } from './prometheus-client.ts';

// A stand-in for Prometheus's HTTP API, answering by the query it is sent; the real one is in
// test/releases/prometheus-guard.test.ts.
const ANSWERS: Readonly<Record<string, unknown>> = {
  one: { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, '0.25'] }] } },
  two: {
    status: 'success',
    data: { resultType: 'vector', result: [{ value: [1, '1'] }, { value: [1, '2'] }] },
  },
  scalar: { status: 'success', data: { resultType: 'scalar', result: [1, '7'] } },
  none: { status: 'success', data: { resultType: 'vector', result: [] } },
  nan: { status: 'success', data: { resultType: 'vector', result: [{ value: [1, 'NaN'] }] } },
  bad: { status: 'error', errorType: 'bad_data', error: 'parse error at char 4' },
};

describe('PrometheusClient', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const query = new URLSearchParams(body).get('query') ?? '';
      if (query === 'hang') return; // never answers
      res.setHeader('content-type', 'application/json');
      res.statusCode = query === 'bad' ? 400 : 200;
      res.end(JSON.stringify(ANSWERS[query]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it.each([
    ['one', 0.25],
    ['two', 3],
    ['scalar', 7],
  ])('reads %s as %d', async (query, value) => {
    expect(await new PrometheusClient(url).value(query)).toBe(value);
  });

  it.each([
    ['none', 'no data for none'],
    ['nan', 'no number for nan'],
    ['bad', 'Prometheus refused bad: parse error at char 4'],
    ['hang', 'did not answer within 0.2 s'],
  ])('cannot read %s: %s', async (query, message) => {
    await expect(new PrometheusClient(url, { timeoutMs: 200 }).value(query)).rejects.toThrow(message);
  });

  it('names the address that does not answer', async () => {
    const closed = new PrometheusClient('http://127.0.0.1:9');
    await expect(closed.value('up')).rejects.toThrow(
      /^Prometheus at http:\/\/127\.0\.0\.1:9 did not answer \(/,
    );
  });
});

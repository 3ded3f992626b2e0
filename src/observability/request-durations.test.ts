import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastHistogram } from './request-durations.ts';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.25, 1];
const OBSERVATIONS: Array<[Record<string, string>, number]> = [
  [{ route: '/v1/flags/:flagKey', method: 'GET', status_class: '2xx' }, 0.0004],
  [{ route: '/v1/flags/:flagKey', method: 'GET', status_class: '2xx' }, 0.0005],
  [{ route: '/v1/flags/:flagKey', method: 'GET', status_class: '2xx' }, 0.003],
  [{ route: 'unmatched', method: 'GET', status_class: '4xx' }, 0.2],
  [{ route: '/v1/flags/:flagKey', method: 'GET', status_class: '2xx' }, 7],
  [{ route: 'say "hi"\\', method: 'POST', status_class: '5xx' }, 0.01],
];

describe('FastHistogram', () => {
  it('is exposed exactly as prom-client exposes its own Histogram', async () => {
    const theirs = new Registry();
    const histogram = new Histogram({
      name: 'request_seconds',
      help: 'How long.',
      labelNames: ['route', 'method', 'status_class'],
      buckets: BUCKETS,
      registers: [theirs],
    });
    const ours = new Registry();
    const fast = new FastHistogram({ name: 'request_seconds', help: 'How long.', buckets: BUCKETS });
    ours.registerMetric(fast as unknown as Histogram);
    for (const [labels, seconds] of OBSERVATIONS) {
      histogram.labels(labels).observe(seconds);
      fast.series(JSON.stringify(labels), () => labels).observe(seconds);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('request_seconds_bucket{le="0.0005",route="/v1/flags/:flagKey"');
  });
});

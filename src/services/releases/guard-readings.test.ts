import { describe, expect, it } from 'vitest';
import { prometheusVerdict, queryFor, readPrometheusGuard } from './guard-readings.ts';
import { type PrometheusQueries, PrometheusUnreadable } from './prometheus-client.ts';

const AT = '2026-01-01T00:00:00.000Z';
const PLAN = { id: 'rpl_1', projectId: 'prj_1', environment: 'production', control: 'old', treatment: 'new' };

describe('prometheusVerdict: higher is worse', () => {
  it.each([
    [{ above: 0.05 }, 0.04, undefined, 'clear', 0.05],
    [{ above: 0.05 }, 0.05, undefined, 'clear', 0.05],
    [{ above: 0.05 }, 0.06, undefined, 'breached', 0.05],
    [{ relativeToControl: 1.5 }, 0.02, 0.02, 'clear', 0.03],
    [{ relativeToControl: 1.5 }, 0.1, 0.02, 'breached', 0.03],
    [{ relativeToControl: 1.5 }, 0, 0, 'clear', 0],
  ] as const)(
    '%j with treatment %d and control %s: %s (threshold %d)',
    (threshold, treatment, control, status, limit) => {
      const reading = prometheusVerdict({ name: 'errors', threshold }, treatment, control, AT);
      expect(reading.status).toBe(status);
      expect(reading.figures.threshold).toBeCloseTo(limit, 12);
    },
  );
});

describe('readPrometheusGuard', () => {
  const guard = {
    kind: 'prometheus',
    name: 'errors',
    query: 'sum(rate(errors{variant="$variant"}[1m]))',
    threshold: { relativeToControl: 2 },
  } as const;

  it('asks once per variant, $variant replaced', async () => {
    const asked: string[] = [];
    const prometheus: PrometheusQueries = {
      url: 'http://prometheus',
      value: async (query) => {
        asked.push(query);
        return query.includes('"new"') ? 0.3 : 0.1;
      },
    };
    const reading = await readPrometheusGuard(guard, PLAN, prometheus, AT);
    expect(asked.sort()).toEqual([queryFor(guard, 'new'), queryFor(guard, 'old')].sort());
    expect(reading).toMatchObject({ status: 'breached', figures: { treatment: 0.3, control: 0.1 } });
  });

  it('cannot be read when Prometheus gives no figure, or is not configured, and says why', async () => {
    const down: PrometheusQueries = {
      url: 'http://prometheus',
      value: async () => {
        throw new PrometheusUnreadable('Prometheus at http://prometheus did not answer within 5 s');
      },
    };
    expect(await readPrometheusGuard(guard, PLAN, down, AT)).toMatchObject({
      status: 'unreadable',
      message: 'Prometheus at http://prometheus did not answer within 5 s',
    });
    expect(await readPrometheusGuard(guard, PLAN, undefined, AT)).toMatchObject({
      status: 'unreadable',
      message: 'FLAGSTAFF_PROMETHEUS_URL is not set',
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeProcess, startNodeProcess } from '../plane/node-process.ts';
import { until } from './support.ts';

/**
 * FLAGSTAFF_WORKERS=2 (decisions 1986, 1988): a key's rate limit is the configured one across
 * both workers, within ±10 %, with many connections (spread over the workers) and with one
 * (which lands on one worker).
 */
const BUDGET = 60;
/** Long enough to empty the burst (a second's budget) the buckets start with. */
const WARM_UP_MS = 2_000;
const WINDOW_MS = 4_000;

/** `connections` keep-alive connections evaluating as fast as they are answered: statuses in the window after the warm-up. */
async function hammer(url: string, key: string, connections: number): Promise<Map<number, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const statuses = new Map<number, number>();
  const start = performance.now();
  const post = () =>
    new Promise<number>((resolve, reject) => {
      const body = '{"attributes":{}}';
      const req = request(
        `${url}/v1/evaluate`,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() - start < WARM_UP_MS + WINDOW_MS) {
        const status = await post();
        const at = performance.now() - start;
        if (at >= WARM_UP_MS && at < WARM_UP_MS + WINDOW_MS)
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  agent.destroy();
  return statuses;
}

describe('rate limits across FLAGSTAFF_WORKERS=2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-workers-'));
  let node: NodeProcess;
  let url: string;
  let admin: string;

  beforeAll(async () => {
    node = startNodeProcess({
      FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'flagstaff.db')}`,
      FLAGSTAFF_WORKERS: '2',
      FLAGSTAFF_RATE_LIMIT_EVALUATION: String(BUDGET),
      FLAGSTAFF_RATE_LIMIT_MANAGEMENT: '0',
      FLAGSTAFF_LOG_LEVEL: 'warn',
    });
    url = await node.listening;
    await until(
      async () => (node.output().match(/listening: API/g) ?? []).length === 2,
      30_000,
      'the second worker',
    );
    admin = /^\s+(fsk_\S+)$/m.exec(node.output())?.[1] as string;
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const evaluatorKey = async (name: string) => {
    const created = await fetch(`${url}/v1/projects/default/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, role: 'evaluator' }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { secret: string }).secret;
  };

  it.each([16, 1])(
    'admits the budget, within a tenth, over %i connection(s)',
    async (connections) => {
      const key = await evaluatorKey(`hammered over ${connections}`);
      const statuses = await hammer(url, key, connections);
      const admittedPerSecond = (statuses.get(200) ?? 0) / (WINDOW_MS / 1000);
      console.info(
        `FLAGSTAFF_WORKERS=2, budget ${BUDGET}/s, ${connections} connection(s): ${admittedPerSecond.toFixed(1)}/s admitted, ${((statuses.get(429) ?? 0) / (WINDOW_MS / 1000)).toFixed(0)}/s refused (429)`,
      );
      // Both workers knew the key by then: every answer was an admission or a refusal.
      expect([...statuses.keys()].sort()).toEqual([200, 429]);
      expect(admittedPerSecond).toBeGreaterThanOrEqual(BUDGET * 0.9);
      expect(admittedPerSecond).toBeLessThanOrEqual(BUDGET * 1.1);
    },
    30_000,
  );
});

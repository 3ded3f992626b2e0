import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupActor } from '../access/support.ts';
import { callAsAdmin } from '../support/call-as-admin.ts';
import { describeEachDatabase } from '../support/database.ts';
import { EVEN_SPLIT } from '../support/requests.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { draftCheckoutExperiment } from './support/checkout-experiment.ts';
import { foldOnce, foldUntil } from './support/fold.ts';

// Per-unit aggregates (decision 1941): exposures and events folded once, whatever the order they
// arrive in and however many nodes fold, into what results read: in-window values and the
// pre-exposure covariate. Checked through the ComparisonStatistics port the results read.

const DAY = 86_400_000;
const PROJECT_HEADERS = { 'x-flagstaff-project': 'default', 'x-flagstaff-environment': 'production' };

describeEachDatabase('experiment aggregates', (database) => {
  let server: TestServer;
  let experimentId = '';
  let projectId = '';
  const variants = new Map<string, string>();
  const admin = (method: string, path: string, body?: unknown) => callAsAdmin(server, method, path, body);
  const fold = () => foldOnce(server.store);
  const send = async (events: object[]) => {
    const res = await server.call('POST', '/v1/events', { body: { events }, headers: PROJECT_HEADERS });
    expect(res.body).toMatchObject({ rejected: [] });
  };
  const purchase = (unit: string, value: number, at = Date.now()) => ({
    name: 'purchase',
    context: { targetingKey: unit },
    value,
    timestamp: new Date(at).toISOString(),
  });
  const expose = async (units: readonly string[]) => {
    for (const unit of units) {
      const res = await server.call('POST', '/ofrep/v1/evaluate/flags/banner', {
        body: { context: { targetingKey: unit } },
        headers: PROJECT_HEADERS,
      });
      variants.set(unit, res.body.variant);
    }
    await server.services.exposures.flush();
  };
  const statistics = async (metric: string) =>
    server.services.comparisonStatistics.variantStatistics(
      { projectId, environment: 'production', key: experimentId },
      await server.services.metrics.get(setupActor, 'default', metric),
      { cuped: true },
    );

  beforeAll(async () => {
    server = await startTestServer(database);
    projectId = (await admin('GET', '/v1/projects/default')).id;
    await admin('POST', '/v1/projects/default/flags', { key: 'banner' });
    await admin('PATCH', '/v1/projects/default/flags/banner?environment=production', EVEN_SPLIT);
    await admin('POST', '/v1/projects/default/metrics', {
      key: 'spend',
      event: 'purchase',
      kind: 'sum',
      window: 1,
    });
    await draftCheckoutExperiment(admin, { secondary: ['spend'], cuped: true });
    experimentId = (await admin('POST', '/v1/projects/default/experiments/checkout/start')).id;
  });
  afterAll(() => server?.close());

  it('folds each unit once into its first variant, with its window and its days before exposure', async () => {
    // u1 bought before it was exposed (its covariate), a unit never exposed buys too.
    await send([purchase('u1', 5, Date.now() - 3 * DAY), purchase('stranger', 99)]);
    await fold();
    await expose(['u1', 'u2', 'u3', 'u4']);
    await send([
      purchase('u1', 10),
      purchase('u1', 2),
      purchase('u2', 20),
      // Earlier the same day as its exposure: neither in its window nor before its day.
      purchase('u3', 7, Date.now() - 30_000),
      // Two days before: u4's covariate, arriving after its exposure.
      purchase('u4', 4, Date.now() - 2 * DAY),
    ]);
    // Two nodes fold at once: the cursor lets one write each stretch.
    await Promise.all([fold(), fold()]);
    const expected = new Map<string, { n: number; post: number[]; pre: number[] }>();
    const values: Record<string, [number, number]> = { u1: [12, 5], u2: [20, 0], u3: [0, 0], u4: [0, 4] };
    for (const [unit, [post, pre]] of Object.entries(values)) {
      const variant = variants.get(unit) as string;
      const known = expected.get(variant) ?? { n: 0, post: [], pre: [] };
      expected.set(variant, { n: known.n + 1, post: [...known.post, post], pre: [...known.pre, pre] });
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const wanted = new Map(
      [...expected].map(([variant, { n, post, pre }]) => [
        variant,
        {
          kind: 'regression-adjusted',
          n,
          post: { kind: 'sample-mean', n, sum: sum(post), sumSquares: sum(post.map((x) => x * x)) },
          pre: { kind: 'sample-mean', n, sum: sum(pre), sumSquares: sum(pre.map((x) => x * x)) },
          postPreSumOfProducts: sum(post.map((x, i) => x * (pre[i] as number))),
        },
      ]),
    );
    await foldUntil(server.store, async () => isDeepStrictEqual(await statistics('spend'), wanted));
    expect(await statistics('spend')).toEqual(wanted);
    const buys = await statistics('buys');
    const converted = [...variants].filter(([u]) => u === 'u1' || u === 'u2').map(([, v]) => v);
    for (const [variant, stat] of buys) {
      expect(stat).toMatchObject({
        post: { kind: 'proportion', sum: converted.filter((v) => v === variant).length },
        pre: { kind: 'proportion', sum: ['u1', 'u4'].filter((u) => variants.get(u) === variant).length },
      });
    }
  });

  it('keeps the sums of each hour it folds in, once, for the effect over time', async () => {
    await fold();
    const results = await admin('GET', '/v1/projects/default/experiments/checkout/results');
    const spend = results.metrics.find((m: { metric: string }) => m.metric === 'spend');
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    expect(spend.overTime.map((p: { at: string }) => p.at)).toEqual([hour]);
    expect(spend.overTime[0].treatments).toEqual([
      expect.objectContaining({ variant: 'on', units: spend.treatments[0].units }),
    ]);
  });

  it('never moves the cursor back for a node whose view of the tables is older than the fold', async () => {
    const { position } = await server.store.aggregates.foldCursor();
    expect(position.events).not.toBe('');
    const stale = await server.store.aggregates.readEvents(position.events, '1', ['purchase'], 100);
    expect(stale).toEqual({ rows: [], next: position.events, more: false });
    const before = await statistics('spend');
    await fold();
    expect(await statistics('spend')).toEqual(before);
  });

  it('counts no event after the experiment stopped', async () => {
    const before = await statistics('spend');
    await admin('POST', '/v1/projects/default/experiments/checkout/stop');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await send([purchase('u2', 1000)]);
    await fold();
    expect(await statistics('spend')).toEqual(before);
  });
});

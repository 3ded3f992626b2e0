import { composeNode } from '../src/main.ts';
import type { Actor } from '../src/services/core/actor.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import type { Services } from '../src/services/services.ts';
import { migrateToLatest, openDatabase } from '../src/storage/open-database.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import { isMain, sendResult } from './child.ts';
import { median, type Row, ratio } from './stats.ts';

// What per-flag counting adds to one evaluation, without HTTP around it: EvaluationService.evaluate
// (the function REST, bulk and OFREP all call) on a flag with a percentage rollout, with counting on
// and off, in one process, alternating rounds, medians. Over HTTP the difference drowns in the
// request's own cost and, on a shared machine, in the scheduler's noise; here it is the whole figure.

const CALLS = 200_000;
const ROUNDS = 7;
const ACTOR: Actor = {
  principal: { type: 'user', id: 'bench', name: 'Bench', role: 'admin', projectId: null, environments: null },
  requestId: 'bench',
};

async function servicesWith(insights: boolean): Promise<Services> {
  const { db } = openDatabase('sqlite::memory:');
  await migrateToLatest(db);
  const store = createSqlStore(db);
  await bootstrap(store, 'fsk_bench-admin-key-0123456789abcdefghijklmnop');
  const { services } = composeNode(store, { insights });
  const flag = await services.flags.create(ACTOR, 'default', { key: 'rollout' });
  await services.flags.patch(
    ACTOR,
    flag.id,
    {
      enabled: true,
      defaultRollout: {
        weights: [
          { variant: 'on', weight: 50 },
          { variant: 'off', weight: 50 },
        ],
      },
    },
    { environment: 'production' },
  );
  return services;
}

/** Nanoseconds per evaluate() call over CALLS calls for as many users. */
async function time(services: Services): Promise<number> {
  const contexts = Array.from({ length: 1000 }, (_, i) => ({ targetingKey: `user-${i}` }));
  const scope = { project: 'default', environment: 'production' };
  const began = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    await services.evaluation.evaluate(
      ACTOR,
      'rollout',
      contexts[i % 1000] as { targetingKey: string },
      scope,
    );
  }
  return Number(process.hrtime.bigint() - began) / CALLS;
}

export async function insightsCounterBenchmark(): Promise<Row[]> {
  const on = await servicesWith(true);
  const off = await servicesWith(false);
  await time(on);
  await time(off);
  const onTimes: number[] = [];
  const offTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ([on, off] as const) : ([off, on] as const);
    for (const services of order) (services === on ? onTimes : offTimes).push(await time(services));
    // What the 10-second flush would have taken away meanwhile; not timed.
    on.insights.counter?.drain();
  }
  const ratios = onTimes.map((t, i) => (offTimes[i] as number) / t);
  return [
    {
      section: 'insights',
      figure: 'evaluate() with counting, ns per evaluation (ratio: off ÷ on)',
      value: `${median(onTimes).toFixed(0)} ns`,
      baseline: `${median(offTimes).toFixed(0)} ns counting off`,
      ratio: median(ratios),
      target: '',
      note: `in process, no HTTP; ${ROUNDS} × ${CALLS.toLocaleString('en')} calls, alternating, medians; rounds ${ratio(Math.min(...ratios))}–${ratio(Math.max(...ratios))}; counting adds ${(median(onTimes) - median(offTimes)).toFixed(0)} ns`,
    },
  ];
}

if (isMain(import.meta.url)) {
  const rows = await insightsCounterBenchmark();
  if (process.send) sendResult(rows);
  else console.log(rows);
}

import type { CompiledEnvironment } from '../src/evaluation/compile-environment.ts';
import type { Json } from './fixtures.ts';
import { median } from './stats.ts';

/** Work that makes `count` evaluations and returns something derived from them, so none is optimised away. */
export interface Workload {
  readonly count: number;
  run(): number;
}

/**
 * Evaluations of `flagKey` over `contexts` in `compiled`, counting the `control` answers. The clock
 * is read once per pass, as a bulk evaluation does: nowSeconds is an input of the evaluator, not part of it.
 */
export function evaluationWorkload(
  compiled: Pick<CompiledEnvironment, 'evaluate'>,
  flagKey: string,
  contexts: readonly Record<string, Json>[],
): Workload {
  return {
    count: contexts.length,
    run() {
      const now = Math.floor(Date.now() / 1000);
      let n = 0;
      for (let i = 0; i < contexts.length; i++) {
        if (compiled.evaluate(flagKey, contexts[i] as Record<string, Json>, now)?.variant === 'control') n++;
      }
      return n;
    },
  };
}

let sink = 0;

// With --expose-gc, each timed slice starts from a collected heap, so that no workload pays for
// the garbage another one left behind (flagd-core allocates on every evaluation; we do not).
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Evaluations per second over `passes` calls of `work.run`. */
function rate(work: Workload, passes: number): number {
  collect();
  const start = process.hrtime.bigint();
  for (let i = 0; i < passes; i++) sink ^= work.run();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return (work.count * passes) / seconds;
}

/** How many passes of `work` take about `targetMs` (warming it up on the way). */
function calibrate(work: Workload, targetMs: number): number {
  let passes = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < passes; i++) sink ^= work.run();
    const elapsed = performance.now() - start;
    if (elapsed >= targetMs / 2) return Math.max(1, Math.round((passes * targetMs) / elapsed));
    passes *= 2;
  }
}

export interface Measured {
  /** Median evaluations/s. */
  readonly rate: number;
  /** Median, least and greatest of the per-round ratios of this workload's rate to the baseline's. */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

/**
 * Times the workloads in turn (A B C A B C …), `rounds` times about `sliceMs` each after warming
 * them all, and compares each with the last one, the baseline, round by round. Medians, so that a
 * stray GC or a noisy neighbour moves one sample rather than the result. Run with --expose-gc.
 */
export function compare(workloads: readonly Workload[], rounds = 9, sliceMs = 150): Measured[] {
  const passes = workloads.map((work) => calibrate(work, sliceMs));
  const rates: number[][] = workloads.map(() => []);
  for (let round = 0; round < rounds; round++) {
    workloads.forEach((work, i) => {
      (rates[i] as number[]).push(rate(work, passes[i] as number));
    });
  }
  if (sink === 0.5) console.log('');
  const baseline = rates[rates.length - 1] as number[];
  return rates.map((series) => {
    const ratios = series.map((value, round) => value / (baseline[round] as number));
    return {
      rate: median(series),
      ratio: median(ratios),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
    };
  });
}

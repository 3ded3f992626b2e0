import { FlagdCore } from '@openfeature/flagd-core';
import type { Flag } from '../src/domain/flag.ts';
import { type CompiledEnvironment, compileEnvironment } from '../src/evaluation/compile-environment.ts';
import { isMain, sendResult } from './child.ts';
import {
  benchmarkContexts,
  ENVIRONMENT,
  FLAGD_CONFIGURATION,
  FLAGD_REASONS,
  FRACTIONAL_FLAG,
  type Json,
  SEGMENTS,
  STATIC_FLAG,
  TARGETED_FLAG,
} from './fixtures.ts';
import { prerequisitesBenchmark } from './prerequisites.ts';
import { type Row, ratio, si } from './stats.ts';
import { compare, evaluationWorkload, type Measured, type Workload } from './timing.ts';

// In-process: Flagstaff's compiled evaluator against @openfeature/flagd-core on the equivalent flagd
// definition, on the same contexts, for a static, a targeted and a fractional flag.

const CASES: readonly { name: string; flag: Flag }[] = [
  { name: 'static flag', flag: STATIC_FLAG },
  { name: 'targeted flag (3 rules, 2 segments)', flag: TARGETED_FLAG },
  { name: 'fractional flag (50/30/20)', flag: FRACTIONAL_FLAG },
];

const CONTEXTS = benchmarkContexts(512);

type Resolve = (
  core: FlagdCore,
  key: string,
  context: Record<string, Json>,
) => { value: unknown; variant?: string; reason?: string };

function resolverFor(flag: Flag): Resolve {
  return flag.type === 'boolean'
    ? (core, key, context) => core.resolveBooleanEvaluation(key, false, context)
    : (core, key, context) => core.resolveStringEvaluation(key, '<fallback>', context);
}

/** Both evaluators must agree on every context, or the comparison would be of different work. */
function checkEquivalent(
  compiled: CompiledEnvironment,
  core: FlagdCore,
  flag: Flag,
  resolve: Resolve,
): string {
  const reasons = new Map<string, number>();
  for (const context of CONTEXTS) {
    const ours = compiled.evaluate(flag.key, context, Math.floor(Date.now() / 1000));
    const theirs = resolve(core, flag.key, context);
    if (
      ours === undefined ||
      ours.value !== theirs.value ||
      ours.variant !== (theirs.variant ?? null) ||
      FLAGD_REASONS[ours.reason] !== theirs.reason
    ) {
      throw new Error(
        `${flag.key}: Flagstaff ${JSON.stringify(ours && [ours.value, ours.variant, ours.reason])} but flagd ${JSON.stringify([theirs.value, theirs.variant, theirs.reason])} for ${JSON.stringify(context)}`,
      );
    }
    reasons.set(ours.reason, (reasons.get(ours.reason) ?? 0) + 1);
  }
  return [...reasons]
    .map(([reason, n]) => `${reason} ${Math.round((n / CONTEXTS.length) * 100)}%`)
    .join(', ');
}

export function evaluatorBenchmark(): Row[] {
  const compiled = compileEnvironment({
    environmentKey: ENVIRONMENT,
    flags: CASES.map((c) => c.flag),
    segments: SEGMENTS,
  });
  const core = new FlagdCore();
  core.setConfigurations(JSON.stringify(FLAGD_CONFIGURATION));

  const rows: Row[] = [];
  for (const { name, flag } of CASES) {
    const resolve = resolverFor(flag);
    const mix = checkEquivalent(compiled, core, flag, resolve);
    const key = flag.key;
    // The evaluator alone: the caller reads the clock once per pass over the contexts.
    const ours = evaluationWorkload(compiled, key, CONTEXTS);
    // As EvaluationService calls it today: the clock read for every evaluation.
    const oursWithClock: Workload = {
      count: CONTEXTS.length,
      run() {
        let n = 0;
        for (let i = 0; i < CONTEXTS.length; i++) {
          const context = CONTEXTS[i] as Record<string, Json>;
          if (compiled.evaluate(key, context, Math.floor(Date.now() / 1000))?.variant === 'control') n++;
        }
        return n;
      },
    };
    const theirs: Workload = {
      count: CONTEXTS.length,
      run() {
        let n = 0;
        for (let i = 0; i < CONTEXTS.length; i++) {
          if (resolve(core, key, CONTEXTS[i] as Record<string, Json>).variant === 'control') n++;
        }
        return n;
      },
    };
    const [alone, withClock, flagd] = compare([ours, oursWithClock, theirs], 11, 200) as [
      Measured,
      Measured,
      Measured,
    ];
    rows.push({
      section: 'evaluator',
      figure: `${name}, evaluations/s`,
      value: si(alone.rate),
      baseline: `${si(flagd.rate)} flagd-core`,
      ratio: alone.ratio,
      target: '≥ 5×',
      met: alone.ratio >= 5,
      note:
        `rounds ${ratio(alone.ratioMin)}–${ratio(alone.ratioMax)}; with Date.now() per evaluation (as ` +
        `EvaluationService does): ${si(withClock.rate)}/s, ${ratio(withClock.ratio)}; contexts: ${mix}`,
    });
  }
  rows.push(...prerequisitesBenchmark());
  return rows;
}

if (isMain(import.meta.url)) sendResult(evaluatorBenchmark());

import type { JsonValue } from '../src/domain/flag.ts';
import { tryCompileTargeting } from '../src/evaluation/jsonlogic/compile-targeting.ts';
import { resolveEvaluators } from '../src/flagd/resolve-evaluators.ts';
import { isMain, sendResult } from './child.ts';
import { benchmarkContexts, FLAGD_CONFIGURATION, type Json } from './fixtures.ts';
import { tryCompileWithEngine } from './spike/json-logic-engine-targeting.ts';
import { type Row, ratio, si } from './stats.ts';
import { compare, type Measured, type Workload } from './timing.ts';

// Decision 0103: Flagstaff's JsonLogic compiler (src/evaluation/jsonlogic/) against
// json-logic-engine with flagd's operators (bench/spike/), on the same targeting and contexts.
// Only the targeting itself is timed: the variant key it yields, for one context.

const flags = FLAGD_CONFIGURATION.flags as Record<string, { targeting?: JsonValue }>;
const evaluators = FLAGD_CONFIGURATION.$evaluators as unknown as Record<string, JsonValue>;
const inline = (logic: JsonValue): JsonValue => resolveEvaluators(logic, evaluators, '').value;

const CASES: readonly { name: string; logic: JsonValue }[] = [
  {
    name: 'targeted (if, in, ends_with, sem_ver, fractional)',
    logic: inline(flags['checkout-redesign']?.targeting as JsonValue),
  },
  { name: 'fractional (50/30/20)', logic: flags['homepage-experiment']?.targeting as JsonValue },
  {
    name: 'sem_ver chain (flagd testkit)',
    logic: {
      if: [
        { sem_ver: [{ var: 'app_version' }, '=', '2.0.0'] },
        'equal',
        { if: [{ sem_ver: [{ var: 'app_version' }, '>', '2.0.0'] }, 'greater', 'lesser'] },
      ],
    },
  },
  {
    name: 'comparisons and strings',
    logic: {
      if: [
        { and: [{ '>=': [{ var: 'age' }, 18] }, { '==': [{ var: 'platform' }, 'ios'] }] },
        'adult-ios',
        { in: ['@example.com', { var: 'email' }] },
        { cat: ['lang-', { var: 'language' }] },
        null,
      ],
    },
  },
];

const CONTEXTS = benchmarkContexts(512);
const NOW = 1_750_000_000;
const FLAG_KEY = 'checkout-redesign';
// Many short rounds: on a shared machine the median of per-round ratios then settles.
const ROUNDS = 41;

function compiled(compile: typeof tryCompileTargeting, logic: JsonValue) {
  const result = compile(logic);
  if (!result.ok) throw new Error(`does not compile: ${result.error.message}`);
  return result.evaluate;
}

export function jsonLogicBenchmark(): Row[] {
  const rows: Row[] = [];
  for (const { name, logic } of CASES) {
    const ours = compiled(tryCompileTargeting, logic);
    const engine = compiled(tryCompileWithEngine, logic);
    for (const context of CONTEXTS) {
      const a = ours(context, FLAG_KEY, NOW);
      const b = engine(context, FLAG_KEY, NOW);
      if (a !== b) throw new Error(`${name}: ${a} but the engine ${b} for ${JSON.stringify(context)}`);
    }
    const workload = (evaluate: typeof ours): Workload => ({
      count: CONTEXTS.length,
      run() {
        let n = 0;
        for (let i = 0; i < CONTEXTS.length; i++) {
          if (evaluate(CONTEXTS[i] as Record<string, Json>, FLAG_KEY, NOW) === 'control') n++;
        }
        return n;
      },
    });
    const [mine] = compare([workload(ours), workload(engine)], ROUNDS, 100) as [Measured, Measured];
    rows.push({
      section: 'jsonlogic',
      figure: `JsonLogic ${name}, evaluations/s`,
      value: si(mine.rate),
      baseline: `${si(mine.rate / mine.ratio)} json-logic-engine`,
      ratio: mine.ratio,
      target: '≥ 1×',
      met: mine.ratio >= 1,
      note: `rounds ${ratio(mine.ratioMin)}–${ratio(mine.ratioMax)}; same variant for all ${CONTEXTS.length} contexts`,
    });
  }
  return rows;
}

if (isMain(import.meta.url)) sendResult(jsonLogicBenchmark());

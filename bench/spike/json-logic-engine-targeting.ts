// Decision 0103's spike: flagd targeting evaluated by json-logic-engine (what @openfeature/flagd-core
// uses) with flagd's operators added, instead of src/evaluation/jsonlogic/. Same contract as
// tryCompileTargeting, so that the differential tests and bench/jsonlogic.ts can run either.
// Decision 0103 records what it measured; it is not used by the service.
import { LogicEngine } from 'json-logic-engine';
import type { JsonValue } from '../../src/domain/flag.ts';
import { nestsDeeperThan } from '../../src/domain/json-depth.ts';
import type {
  CompiledTargeting,
  TargetingCompilation,
} from '../../src/evaluation/jsonlogic/compile-targeting.ts';
import {
  FLAGD_CONTEXT,
  fractional,
  requireFlagdContext,
  semVer,
  stringAffix,
} from '../../src/evaluation/jsonlogic/flagd-operators.ts';

const asList = (args: unknown): unknown[] => (Array.isArray(args) ? args : [args]);

/** One engine with flagd's four operators, the way flagd-core registers them. */
function flagdEngine(): LogicEngine {
  const engine = new LogicEngine();
  engine.addMethod('fractional', (args: unknown, data: unknown) => fractional(asList(args), data));
  engine.addMethod('sem_ver', (args: unknown, data: unknown) => {
    requireFlagdContext(data);
    return semVer(asList(args));
  });
  engine.addMethod('starts_with', (args: unknown, data: unknown) => {
    requireFlagdContext(data);
    return stringAffix('starts_with', asList(args));
  });
  engine.addMethod('ends_with', (args: unknown, data: unknown) => {
    requireFlagdContext(data);
    return stringAffix('ends_with', asList(args));
  });
  return engine;
}

const engine = flagdEngine();

const toVariantKey = (result: unknown): string | null =>
  result === null || result === undefined ? null : (result as { toString(): string }).toString();

/** tryCompileTargeting on json-logic-engine: `engine.build` compiles to JavaScript with `new Function`. */
export function tryCompileWithEngine(logic: JsonValue): TargetingCompilation {
  if (!logic || Object.keys(logic).length === 0) return { ok: true, evaluate: () => null };
  if (nestsDeeperThan(logic)) return { ok: false, error: { path: '', message: 'too deep' } };
  let run: (data: unknown) => unknown;
  try {
    run = engine.build(logic) as (data: unknown) => unknown;
  } catch (error) {
    return { ok: false, error: { path: '', message: String(error) } };
  }
  const evaluate: CompiledTargeting = (context, flagKey, nowSeconds) => {
    const data = {
      ...context,
      $flagd: { flagKey, timestamp: Math.floor(nowSeconds) },
      [FLAGD_CONTEXT]: true,
    };
    try {
      return toVariantKey(run(data));
    } catch {
      return null;
    }
  };
  return { ok: true, evaluate };
}

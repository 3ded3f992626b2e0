import type { FieldError } from '../../domain/errors.ts';
import type { EvaluationContext } from '../../domain/evaluation-result.ts';
import type { JsonValue } from '../../domain/flag.ts';
import { pointerToken } from '../../domain/json.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/json-depth.ts';
import { type CompileState, compileCompiled, ROOT_STATE } from './compiled.ts';
import { FLAGD_CONTEXT, SEM_VER_OPERATORS, toBuckets } from './flagd-operators.ts';
import { type Node, newFrame, TargetingCompileError } from './node.ts';

/** A compiled targeting: the variant key it picks, or null when it picks none. */
export type CompiledTargeting = (
  context: EvaluationContext,
  flagKey: string,
  nowSeconds: number,
) => string | null;

const TOP_ABOVE: readonly unknown[] = [];
const NO_VARIANT: CompiledTargeting = () => null;

/**
 * flagd turns whatever targeting returns into a variant key with `toString()`: strings as they are,
 * booleans "true"/"false", numbers their decimal text; null (or nothing) means no variant.
 */
function toVariantKey(result: unknown): string | null {
  if (result === null || result === undefined) return null;
  return (result as { toString(): string }).toString();
}

/** flagd ignores targeting that is falsy or has no keys (`{}`, `[]`, numbers, booleans). */
const isAbsent = (logic: JsonValue): boolean => !logic || Object.keys(logic).length === 0;

/** Compiled targeting, or why flagd could not build it (it then answers PARSE_ERROR on every evaluation). */
export type TargetingCompilation =
  | { readonly ok: true; readonly evaluate: CompiledTargeting }
  | { readonly ok: false; readonly error: FieldError };

const TOO_DEEP: FieldError = {
  path: '',
  message: `targeting nests deeper than ${MAX_JSON_DEPTH} levels`,
};

/** The tree flagd's engine would build, or the error that makes it refuse the targeting. */
function build(logic: JsonValue): Node | FieldError {
  // Compilation recurses over the expression: bound it before it starts.
  if (nestsDeeperThan(logic)) return TOO_DEEP;
  try {
    return compileCompiled(logic, ROOT_STATE);
  } catch (error) {
    if (error instanceof TargetingCompileError) return { path: error.path, message: error.message };
    return {
      path: '',
      message: `targeting cannot be compiled: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

const isNode = (built: Node | FieldError): built is Node => 'constant' in built;

/** Compiles flagd targeting once; the evaluator never throws. Result: a variant key, or null when targeting yields no variant. */
export function tryCompileTargeting(logic: JsonValue): TargetingCompilation {
  // The caller serves the default variant with reason "static" for absent targeting, as flagd does.
  if (isAbsent(logic)) return { ok: true, evaluate: NO_VARIANT };
  const root = build(logic);
  if (!isNode(root)) return { ok: false, error: root };
  let compiled = compilations.get(root);
  if (compiled === undefined) {
    compiled = { ok: true, evaluate: evaluatorOf(root) };
    compilations.set(root, compiled);
  }
  return compiled;
}

/** Flags with the same targeting share its compiled tree (compiled.ts) and so its evaluator too. */
const compilations = new WeakMap<Node, TargetingCompilation>();

/** compileTargeting for callers that need no reason: targeting that does not compile yields no variant. */
export function compileTargeting(logic: JsonValue): CompiledTargeting {
  const compiled = tryCompileTargeting(logic);
  return compiled.ok ? compiled.evaluate : NO_VARIANT;
}

function evaluatorOf(root: Node): CompiledTargeting {
  if (root.constant) {
    let key: string | null = null;
    try {
      key = toVariantKey(root.value);
    } catch {
      // an object whose toString is not callable: no variant, as flagd's evaluation fails
    }
    return () => key;
  }
  const run = root.run;
  return (context, flagKey, nowSeconds) => {
    // flagd injects $flagd over whatever the context holds under that name; its timestamp is whole seconds.
    const data: Record<string | symbol, unknown> = {
      ...context,
      $flagd: { flagKey, timestamp: Math.floor(nowSeconds) },
    };
    // Assigned, not a computed key of the literal: contexts come in many shapes, and V8 defines
    // a literal's computed key megamorphic (a runtime call) after a second shape; a keyed store
    // caches them (twice as fast at five context shapes).
    data[FLAGD_CONTEXT] = true;
    try {
      return toVariantKey(run(data, TOP_ABOVE, newFrame()));
    } catch {
      // flagd answers an evaluation error (reason ERROR); Flagstaff serves the default variant instead.
      return null;
    }
  };
}

/** Why flagd cannot build this targeting (it answers PARSE_ERROR), or undefined when it can. */
export function targetingParseError(logic: JsonValue): FieldError | undefined {
  if (isAbsent(logic)) return undefined;
  const root = build(logic);
  return isNode(root) ? undefined : root;
}

/**
 * Uses of flagd's own operators that are written literally and can never do anything useful: flagd
 * evaluates them (to null, or with a weight clamped to 0) but its schema refuses them. Paths are
 * JSON pointers within the targeting. Call only on targeting that compiles (depth is bounded).
 */
export function targetingLint(logic: JsonValue): FieldError[] {
  const errors: FieldError[] = [];
  if (!isAbsent(logic)) lintCustomOperators(logic, { ...ROOT_STATE }, errors);
  return errors;
}

/** Problems that make targeting unusable (flagd would refuse it or could never match); empty when valid. Paths are JSON pointers within the targeting. */
export function validateTargeting(logic: JsonValue): FieldError[] {
  const error = targetingParseError(logic);
  return error === undefined ? targetingLint(logic) : [error];
}

/** Arguments of flagd's own operators that are written literally and can never work (flagd's schema refuses them too). */
function lintCustomOperators(logic: JsonValue, state: CompileState, errors: FieldError[]): void {
  if (Array.isArray(logic)) {
    logic.forEach((item, i) => {
      lintCustomOperators(item, { ...state, path: `${state.path}/${i}` }, errors);
    });
    return;
  }
  if (!logic || typeof logic !== 'object') return;
  for (const [name, args] of Object.entries(logic)) {
    const path = `${state.path}/${pointerToken(name)}`;
    if (Array.isArray(args)) {
      if (name === 'sem_ver') lintSemVer(args, path, errors);
      if (name === 'fractional') lintFractional(args, path, errors);
      if ((name === 'starts_with' || name === 'ends_with') && args.length !== 2) {
        errors.push({ path, message: `"${name}" takes exactly two arguments` });
      }
    }
    lintCustomOperators(args, { ...state, path }, errors);
  }
}

function lintSemVer(args: readonly JsonValue[], path: string, errors: FieldError[]): void {
  if (args.length !== 3) {
    errors.push({ path, message: '"sem_ver" takes [version, operator, version]' });
    return;
  }
  const operator = args[1];
  if (typeof operator === 'string' && !SEM_VER_OPERATORS.includes(operator)) {
    errors.push({
      path: `${path}/1`,
      message: `unknown sem_ver operator "${operator}"; use one of ${SEM_VER_OPERATORS.join(' ')}`,
    });
  }
}

const isExpression = (value: JsonValue): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function lintFractional(args: readonly JsonValue[], path: string, errors: FieldError[]): void {
  const entries = args.length > 0 && !Array.isArray(args[0]) ? args.slice(1) : args;
  const offset = args.length - entries.length;
  if (entries.length === 0) {
    errors.push({ path, message: '"fractional" needs at least one [variant, weight] entry' });
    return;
  }
  entries.forEach((entry, i) => {
    if (!Array.isArray(entry) || entry.some(isExpression)) return;
    if (!toBuckets([entry])) {
      errors.push({
        path: `${path}/${i + offset}`,
        message: 'a fractional entry is [variant] or [variant, weight] with a whole, non-negative weight',
      });
    }
  });
}

// The operator table: which operators exist, and how flagd's engine treats their arguments.
import { pointerToken } from '../../domain/json.ts';
import { TargetingCompileError } from './node.ts';

/** Operators that run a logic over each item of a list (lazy: the logic is evaluated per item). */
const ITERATOR_NAMES = ['map', 'filter', 'reduce', 'all', 'some', 'none'];

/** Operators of JsonLogic that flagd documents, plus flagd's own. */
export const OPERATORS: ReadonlySet<string> = new Set([
  'var',
  'missing',
  'missing_some',
  'if',
  '?:',
  '==',
  '===',
  '!=',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  '<',
  '<=',
  '>',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  'min',
  'max',
  'cat',
  'substr',
  'in',
  'merge',
  ...ITERATOR_NAMES,
  'log',
  'fractional',
  'sem_ver',
  'starts_with',
  'ends_with',
]);

/** Operators that receive their arguments unevaluated and evaluate them on demand. */
export const LAZY_OPERATORS: ReadonlySet<string> = new Set([
  'if',
  '?:',
  'or',
  'and',
  '==',
  '===',
  '!=',
  '!==',
  '<',
  '<=',
  '>',
  '>=',
  ...ITERATOR_NAMES,
]);

/** Operators whose single argument is passed as is rather than wrapped in a list. */
export const UNARY_OPERATORS: ReadonlySet<string> = new Set(['var', '+', '-', '!', '!!', 'cat']);

export const ITERATORS: ReadonlySet<string> = new Set(ITERATOR_NAMES);

/** flagd's custom operators (and `log`) are never evaluated at compile time. */
const NEVER_CONSTANT: ReadonlySet<string> = new Set([
  'missing_some',
  'fractional',
  'sem_ver',
  'starts_with',
  'ends_with',
  'log',
]);

/** The operator of an expression object, or a compile error for unknown operators and objects with several keys. */
export function operatorOf(logic: object, path: string): string | undefined {
  const keys = Object.keys(logic);
  const name = keys[0];
  if (name === undefined) return undefined;
  if (keys.length > 1) {
    throw new TargetingCompileError(
      path,
      `an expression must have exactly one operator, found ${keys.length}: ${keys.join(', ')}`,
    );
  }
  if (!OPERATORS.has(name)) {
    const reference = (logic as { $ref?: unknown }).$ref;
    const hint =
      name === '$ref' ? ` (a $ref to an evaluator that does not exist: ${JSON.stringify(reference)})` : '';
    throw new TargetingCompileError(path, `unknown operator "${name}"${hint}`);
  }
  return name;
}

/**
 * Whether an expression yields the same value for every context, so the engine evaluates it once at
 * compile time (and refuses the whole targeting if that fails). Mirrors json-logic-engine's isDeterministic.
 */
export function isDeterministic(logic: unknown, insideIterator: boolean, path: string): boolean {
  if (Array.isArray(logic))
    return logic.every((item, i) => isDeterministic(item, insideIterator, `${path}/${i}`));
  if (!logic || typeof logic !== 'object') return true;
  const name = operatorOf(logic, path);
  if (name === undefined) return true;
  const args = (logic as Record<string, unknown>)[name];
  const argsPath = `${path}/${pointerToken(name)}`;
  if (ITERATORS.has(name)) {
    if (args === null || args === undefined) {
      throw new TargetingCompileError(argsPath, `"${name}" needs an array of arguments`);
    }
    const list = args as Record<number, unknown>;
    return (
      isDeterministic(list[0], insideIterator, `${argsPath}/0`) &&
      isDeterministic(list[1], true, `${argsPath}/1`)
    );
  }
  if (name === 'var') return insideIterator && !String(args).includes('../../');
  if (name === 'missing') return Array.isArray(args) && args.length === 0;
  if (NEVER_CONSTANT.has(name)) return false;
  return isDeterministic(args, insideIterator, argsPath);
}

/** JSON pointer escaping of one reference token. */

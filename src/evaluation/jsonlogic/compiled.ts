// flagd-core compiles targeting with json-logic-engine's compiler (JavaScript source built from the
// JsonLogic). This reproduces that compiler's semantics with closures: constant folding at load time,
// the shared `prev` variable, and the fallbacks to interpreter semantics.
import { pointerToken } from '../../domain/json.ts';
import { sharedCompiled } from '../shared-compiled.ts';
import {
  assertAllowedDepth,
  assertSize,
  COMPARISONS,
  type ComparisonOperator,
  coerceArray,
  compareCheck,
  isStrict,
  isTruthy,
  own,
  precoerceNumber,
  toNumber,
} from './coercion.ts';
import { fractionalNode, operatorImplementation } from './implementations.ts';
import { compileInterpreted, lazyComparator, lazyIf, lazyLogic } from './interpreted.ts';
import { catMethod, missingMethod, missingSomeMethod, varMethod } from './methods.ts';
import {
  arrayNode,
  constant,
  dynamic,
  evaluate,
  failing,
  type Node,
  newFrame,
  type Run,
  TargetingCompileError,
} from './node.ts';
import { isDeterministic, LAZY_OPERATORS, operatorOf } from './operators.ts';
import { atom, literal, op, PastedSyntaxError, parseTokens, type Token } from './precedence.ts';
import { splitPath } from './split-path.ts';

export interface CompileState {
  /** JSON pointer of the expression being compiled, for error messages. */
  readonly path: string;
  /** Inside the callback of an iterator (`{"var": "../index"}` then means the element's index). */
  readonly iteratorCompile: boolean;
  /** The innermost callback is map/filter/all/some/none, which receive an index (reduce's does not). */
  readonly hasIndex: boolean;
}

export const ROOT_STATE: CompileState = { path: '', iteratorCompile: false, hasIndex: false };

const FOLD_ABOVE: readonly unknown[] = [];

const at = (state: CompileState, token: string | number): CompileState => ({
  ...state,
  path: `${state.path}/${typeof token === 'number' ? token : pointerToken(token)}`,
});

const refuse = (state: CompileState, message: string): never => {
  throw new TargetingCompileError(state.path, message);
};

/** Compiles targeting as flagd-core does; throws TargetingCompileError where flagd-core refuses the targeting. */
export function compileCompiled(logic: unknown, state: CompileState): Node {
  if (!logic || typeof logic !== 'object') return constant(logic);
  return compileShared({ logic, state });
}

/**
 * How many distinct sub-expressions are remembered: their texts are the cache's own cost (~10 KB
 * a hundred), and a project whose targeting shares nothing empties it and starts again.
 */
const SHARED_EXPRESSIONS = 4096;

/**
 * Identical sub-expressions compile once and are shared by every flag and environment that has
 * them (decision 2090): a compiled node is a pure function of its JSON text and of whether it sits
 * in an iterator's callback, and a fractional split buckets by what it names or by the flag key given at evaluation,
 * so `{"fractional": [{"var": "targetingKey"}, ["on", 50], ["off", 50]]}` is one closure tree for
 * 10,000 flags instead of 1.4 KB each. Compile errors are thrown, never remembered: each names
 * its own path. The path a shared node was first compiled at only ever reaches errors swallowed
 * at evaluation (compile-targeting.ts answers no variant).
 */
const compileShared = sharedCompiled(
  ({ logic, state }: { logic: object; state: CompileState }) => compileExpression(logic, state),
  SHARED_EXPRESSIONS,
  ({ logic, state }) => `${state.iteratorCompile ? 1 : 0}${state.hasIndex ? 1 : 0}${JSON.stringify(logic)}`,
);

function compileExpression(logic: object, state: CompileState): Node {
  if (Array.isArray(logic)) return arrayNode(logic.map((item, i) => compileCompiled(item, at(state, i))));
  const name = operatorOf(logic, state.path);
  if (name === undefined) return constant(logic);
  if (isDeterministic(logic, false, state.path)) return fold(logic, state);
  let args = (logic as Record<string, unknown>)[name];
  if ((!args || typeof args !== 'object') && !LAZY_OPERATORS.has(name)) args = [args];
  return operatorNode(name, args, at(state, name));
}

/** A context-independent expression is evaluated once at load time; if that fails flagd refuses the targeting. */
function fold(logic: object, state: CompileState): Node {
  try {
    return constant(evaluate(compileInterpreted(logic, state.path), {}, FOLD_ABOVE, newFrame()));
  } catch (error) {
    if (error instanceof TargetingCompileError) throw error;
    return refuse(state, `this constant expression fails: ${describe(error)}`);
  }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An expression whose generated text is unparenthesised: evaluated as its tokens parse on their own. */
function pastable(tokens: readonly Token[], state: CompileState): Node {
  return { constant: false, run: pasted(tokens, state), tokens };
}

function pasted(tokens: readonly Token[], state: CompileState): Run {
  try {
    return parseTokens(tokens);
  } catch (error) {
    if (error instanceof PastedSyntaxError)
      return refuse(state, `flagd's engine generates invalid code here (${error.message})`);
    throw error;
  }
}

const tokensOf = (node: Node): Token[] => {
  if (node.constant) return [literal(node.value)];
  return node.tokens ? [...node.tokens] : [atom(node.run)];
};

const PREV: Token = atom((_data, _above, frame) => frame.prev);

/** `value.key` in JavaScript: fails on null and undefined. */
function property(value: unknown, key: string | number): unknown {
  if (value === null || value === undefined) throw new TypeError(`cannot read "${key}" of ${value}`);
  return (value as Record<string | number, unknown>)[key];
}

/** The engine's `(X || [])` around a list operand, pasted as text. */
function orEmpty(node: Node, state: CompileState): Run {
  if (!node.constant && node.tokens) return pasted([...node.tokens, op('||'), literal([])], state);
  return (data, above, frame) => evaluate(node, data, above, frame) || [];
}

function operatorNode(name: string, args: unknown, state: CompileState): Node {
  switch (name) {
    case 'var':
      return varNode(args, state);
    case 'missing':
      return missingNode(args, state);
    case 'missing_some':
      return missingSomeNode(args, state);
    case 'if':
    case '?:':
      return ifNode(args, state);
    case 'or':
    case 'and':
      return logicNode(args, name === 'or', state);
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
      return arithmeticNode(name, args, state);
    case 'cat':
      return catNode(args, state);
    case 'in':
      return inNode(args, state);
    case '!':
    case '!!':
      return notNode(args, name === '!!', state);
    case 'map':
    case 'filter':
    case 'some':
    case 'none':
    case 'all':
      return iteratorNode(name, args, state);
    case 'reduce':
      return reduceNode(args, state);
  }
  if (name in COMPARISONS) return comparisonNode(name as ComparisonOperator, args, state);
  if (name === 'fractional' && Array.isArray(args)) {
    return fractionalNode(args.map((item, i) => compileCompiled(item, at(state, i))));
  }
  return callNode(name, args, state);
}

/** An operator the compiler calls with its evaluated arguments. */
function callNode(name: string, args: unknown, state: CompileState): Node {
  const apply = operatorImplementation(name);
  const argsNode = compileCompiled(args, state);
  if (Array.isArray(args))
    return dynamic((data, above, frame) => apply(evaluate(argsNode, data, above, frame), data, above));
  return dynamic((data, above, frame) =>
    apply(coerceArray(evaluate(argsNode, data, above, frame)), data, above),
  );
}

function varNode(args: unknown, state: CompileState): Node {
  if (Array.isArray(args) && args.length <= 2) {
    const key: unknown = args[0];
    if (key === '../index' && state.iteratorCompile) {
      if (state.hasIndex) return dynamic((_data, _above, frame) => frame.index);
      return failing(new ReferenceError('index is not defined'));
    }
    if (key === undefined || key === null || key === '') return dynamic((data) => data);
    if ((typeof key === 'string' || typeof key === 'number') && !String(key).includes('../')) {
      const parts = splitPath(String(key));
      const fallback = compileCompiled(args[1] === undefined ? null : args[1], at(state, 1));
      const read: Run = (data) => {
        let value: unknown = data;
        for (const part of parts) value = own(value, part);
        return value;
      };
      // `(context?.[…] ?? DEFAULT)`: a default with unparenthesised text re-associates with `??`.
      const lookup: Run =
        !fallback.constant && fallback.tokens
          ? pasted([atom(read), op('??'), ...fallback.tokens], at(state, 1))
          : (data, above, frame) => read(data, above, frame) ?? evaluate(fallback, data, above, frame);
      return dynamic((data, above, frame) => {
        const value = lookup(data, above, frame);
        frame.prev = value;
        return typeof value === 'function' ? null : value;
      });
    }
  }
  const keyNode = compileCompiled(unwrapSingle(args), state);
  return dynamic((data, above, frame) => varMethod(evaluate(keyNode, data, above, frame), data, above));
}

/** Unary operators called generically receive a one-element list's element itself. */
const unwrapSingle = (args: unknown): unknown =>
  Array.isArray(args) && args.length === 1 && !Array.isArray(args[0]) ? args[0] : args;

const isSimpleKey = (key: unknown): key is string => typeof key === 'string' && !key.includes('.');

/** Tokens of the compiler's inline `missing` for one or two plain keys: `(context || 0)[k] === undefined ? [k] : []`. */
function inlineMissing(keys: readonly unknown[]): Token[] | undefined {
  const absent = (key: string): Token[] => [
    atom((data) => own(data || 0, key)),
    op('==='),
    literal(undefined),
  ];
  const list = (...items: string[]): Token => atom(() => items);
  const [first, second] = keys;
  if (keys.length === 1 && isSimpleKey(first))
    return [...absent(first), op('?'), list(first), op(':'), list()];
  if (keys.length === 2 && isSimpleKey(first) && isSimpleKey(second)) {
    return [
      ...absent(first),
      op('?'),
      ...absent(second),
      op('?'),
      list(first, second),
      op(':'),
      list(first),
      op(':'),
      ...absent(second),
      op('?'),
      list(second),
      op(':'),
      list(),
    ];
  }
  return undefined;
}

function missingNode(args: unknown, state: CompileState): Node {
  if (Array.isArray(args)) {
    if (args.length === 0) return dynamic(() => []);
    const tokens = inlineMissing(args);
    if (tokens) return pastable(tokens, state);
  }
  return callNode('missing', args, state);
}

function missingSomeNode(args: unknown, state: CompileState): Node {
  if (!Array.isArray(args)) return refuse(state, 'missing_some needs [minimum, [keys]]');
  const [needed, options] = args;
  if (!Array.isArray(options)) {
    const argsNode = compileCompiled(args, state);
    return dynamic((data, above, frame) => missingSomeMethod(evaluate(argsNode, data, above, frame), data));
  }
  // The compiler reads the key list as written (expressions in it are not evaluated).
  const inline = options.length === 0 ? undefined : inlineMissing(options);
  const check: Run = inline
    ? parseTokens(inline)
    : options.length === 0
      ? () => []
      : (data) => missingMethod(options, data);
  const neededNode = compileCompiled(needed, at(state, 0));
  // `N - (prev = MISSING).length < NEEDED ? prev : []`, with NEEDED pasted in.
  return pastable(
    [
      literal(options.length),
      op('-'),
      atom((data, above, frame) => {
        const missing = check(data, above, frame) as unknown[];
        frame.prev = missing;
        return missing.length;
      }),
      op('<'),
      ...tokensOf(neededNode),
      op('?'),
      PREV,
      op(':'),
      atom(() => []),
    ],
    state,
  );
}

function ifNode(args: unknown, state: CompileState): Node {
  if (!Array.isArray(args) || args.length < 3) return lazyIf(args, state.path);
  const nodes = args.map((item, i) => compileCompiled(item, at(state, i)));
  if (nodes.length % 2 !== 1) nodes.push(constant(null));
  const otherwise = nodes.pop() as Node;
  return dynamic((data, above, frame) => {
    for (let i = 0; i < nodes.length; i += 2) {
      if (isTruthy(evaluate(nodes[i] as Node, data, above, frame)))
        return evaluate(nodes[i + 1] as Node, data, above, frame);
    }
    return evaluate(otherwise, data, above, frame);
  });
}

function logicNode(args: unknown, isOr: boolean, state: CompileState): Node {
  if (!Array.isArray(args)) return lazyLogic(args, isOr, state.path);
  if (args.length === 0) return constant(null);
  const nodes = args.map((item, i) => compileCompiled(item, at(state, i)));
  // ` engine.truthy(prev = A) ? prev : engine.truthy(prev = B) ? prev : prev` (with `!` for `and`).
  const tokens: Token[] = [];
  for (const node of nodes) {
    tokens.push(
      atom((data, above, frame) => {
        const value = evaluate(node, data, above, frame);
        frame.prev = value;
        return isTruthy(value) === isOr;
      }),
      op('?'),
      PREV,
      op(':'),
    );
  }
  tokens.push(PREV);
  // Parents that paste this text parse the tokens; on its own the chain is this loop, without the
  // closure per `?:` that parsing the tokens builds (a hot path of targeting).
  pasted(tokens, state);
  const run: Run = (data, above, frame) => {
    for (let i = 0; i < nodes.length; i++) {
      const value = evaluate(nodes[i] as Node, data, above, frame);
      frame.prev = value;
      if (isTruthy(value) === isOr) return value;
    }
    return frame.prev;
  };
  return { constant: false, run, tokens };
}

/**
 * `(prev = a) op compareCheck(b, prev)`: `b` may overwrite `prev` before the check reads it,
 * so `{"==": [{"var": "a"}, {"var": "b"}]}` checks `b` against itself. flagd-core does exactly this.
 */
function comparisonNode(operator: ComparisonOperator, args: unknown, state: CompileState): Node {
  if (!Array.isArray(args) || args.length < 2) return lazyComparator(args, operator, state.path);
  const nodes = args.map((item, i) => compileCompiled(item, at(state, i)));
  const compare = COMPARISONS[operator];
  const strict = isStrict(operator);
  return dynamic((data, above, frame) => {
    const first = evaluate(nodes[0] as Node, data, above, frame);
    frame.prev = first;
    const second = evaluate(nodes[1] as Node, data, above, frame);
    const checked = compareCheck(second, frame.prev, strict);
    if (nodes.length === 2) return compare(first, checked);
    frame.prev = checked;
    let result = compare(first, checked);
    for (let i = 2; i < nodes.length; i++) {
      if (!result) return result;
      const left = frame.prev;
      const next = evaluate(nodes[i] as Node, data, above, frame);
      frame.prev = compareCheck(next, frame.prev, strict);
      result = compare(left, frame.prev);
    }
    return result;
  });
}

/** One operand of compiled arithmetic: a number fixed at load time, or an expression coerced at run time. */
type Term =
  | { readonly fixed: true; readonly value: number; readonly zero: boolean }
  | { readonly fixed: false; readonly node: Node };

const DECIMAL = /^-?\d+(\.\d*)?$/;

const fixed = (value: number, zero = false): Term => ({ fixed: true, value, zero });

/** The compiler's numberCoercion: literals are converted (or refused) at load time. */
function term(item: unknown, state: CompileState): Term {
  if (Array.isArray(item)) return refuse(state, 'arithmetic on a list');
  if (typeof item === 'number') return fixed(item, item === 0);
  if (typeof item === 'boolean') return fixed(+item);
  if (typeof item === 'string') {
    const value = +item;
    if (Number.isNaN(value)) return refuse(state, `"${item}" is not a number`);
    return fixed(value, value === 0);
  }
  if (item === null || item === undefined) return fixed(0);
  if (Object.keys(item).length === 0) return refuse(state, 'arithmetic on an object');
  const node = compileCompiled(item, state);
  if (!node.constant) return { fixed: false, node };
  const value = node.value;
  if (typeof value === 'number' && Number.isFinite(value)) {
    const text = JSON.stringify(value);
    return DECIMAL.test(text) ? fixed(+text, text === '0') : fixed(value);
  }
  if (typeof value === 'string') {
    const number = +value;
    if (Number.isNaN(number)) return refuse(state, `"${value}" is not a number`);
    return fixed(number, number === 0);
  }
  if (typeof value === 'boolean') return fixed(+value);
  if (value === null) return fixed(0);
  if (value === undefined) return refuse(state, 'arithmetic on nothing');
  // Objects, lists, NaN and infinities are coerced when evaluated, like any other expression.
  return { fixed: false, node };
}

const termValue = (t: Term, data: unknown, above: unknown, frame: Parameters<typeof evaluate>[3]): number =>
  t.fixed ? t.value : toNumber(evaluate(t.node, data, above, frame));

function arithmeticNode(operator: '+' | '-' | '*' | '/' | '%', args: unknown, state: CompileState): Node {
  if (!Array.isArray(args)) {
    const node = compileCompiled(args, state);
    return operator === '/' ? divideList(node, state) : arithmeticOfList(operator, node);
  }
  if (args.length === 0) {
    if (operator === '+') return constant(0);
    if (operator === '*') return constant(1);
    return refuse(state, `"${operator}" needs arguments`);
  }
  if (operator === '%' && args.length < 2) return refuse(state, '"%" needs two arguments');
  const items = operator === '/' && args.length === 1 ? [1, args[0]] : args;
  const terms = items.map((item, i) => term(item, at(state, operator === '/' && args.length === 1 ? 0 : i)));
  if (operator === '/' && terms.some((t, i) => i > 0 && t.fixed && t.zero))
    return refuse(state, 'division by zero');
  if (operator === '-' && terms.length === 1) {
    const only = terms[0] as Term;
    return dynamic((data, above, frame) => -(precoerceNumber(termValue(only, data, above, frame)) as number));
  }
  return dynamic((data, above, frame) => {
    let result = termValue(terms[0] as Term, data, above, frame);
    for (let i = 1; i < terms.length; i++) {
      const value = termValue(terms[i] as Term, data, above, frame);
      if (operator === '+') result += value;
      else if (operator === '-') result -= value;
      else if (operator === '*') result *= value;
      else if (operator === '/') result /= precoerceNumber(value || Number.NaN) as number;
      else result %= value;
    }
    return precoerceNumber(result);
  });
}

/** Arithmetic whose argument is one expression (expected to yield a list). */
function arithmeticOfList(operator: '+' | '-' | '*' | '/' | '%', node: Node): Node {
  return dynamic((data, above, frame) => {
    const value = evaluate(node, data, above, frame);
    if (operator === '*') return reduceList(value, (a, b) => toNumber(a) * toNumber(b), 1);
    if (operator === '%') return assertSize(value, 2).reduce((a, b) => toNumber(a) % toNumber(b));
    frame.prev = value;
    if (operator === '+') {
      if (Array.isArray(value)) return value.reduce((a: unknown, b) => +(a as number) + toNumber(b), 0);
      return precoerceNumber(+(value as number));
    }
    if (operator === '-') {
      if (!Array.isArray(value)) return -(precoerceNumber(+(value as number)) as number);
      if (value.length === 1) return -(precoerceNumber(value[0]) as number);
      return assertSize(value, 1).reduce((a, b) => toNumber(a) - toNumber(b));
    }
    const list = assertSize(value, 1);
    if (list.length === 1) return 1 / (precoerceNumber(list[0] || Number.NaN) as number);
    return list.reduce((a, b) => toNumber(a) / toNumber(b || Number.NaN));
  });
}

/** `assertSize(prev = X, 1) && prev.length === 1 ? 1 / … : prev.reduce(…)`, unparenthesised. */
function divideList(node: Node, state: CompileState): Node {
  return pastable(
    [
      atom((data, above, frame) => {
        const value = evaluate(node, data, above, frame);
        frame.prev = value;
        return assertSize(value, 1);
      }),
      op('&&'),
      atom((_data, _above, frame) => property(frame.prev, 'length')),
      op('==='),
      literal(1),
      op('?'),
      atom((_data, _above, frame) => 1 / (precoerceNumber(property(frame.prev, 0) || Number.NaN) as number)),
      op(':'),
      atom((_data, _above, frame) =>
        (frame.prev as unknown[]).reduce((a, b) => toNumber(a) / toNumber(b || Number.NaN)),
      ),
    ],
    state,
  );
}

function reduceList(value: unknown, step: (a: unknown, b: unknown) => number, initial: number): number {
  if (!Array.isArray(value)) throw new TypeError('not a list');
  return value.reduce(step, initial);
}

/** Compiled `cat` concatenates with `+`: null becomes "null" (the interpreter skips it). */
function catNode(args: unknown, state: CompileState): Node {
  if (!Array.isArray(args)) {
    const node = compileCompiled(args, state);
    return dynamic((data, above, frame) => catMethod(evaluate(node, data, above, frame)));
  }
  const nodes = args.map((item, i) => compileCompiled(item, at(state, i)));
  if (nodes.some((node) => !node.constant && node.tokens)) {
    // `('' + A + B)`: unparenthesised operands re-associate with the `+` around them.
    return dynamic(pasted([literal(''), ...nodes.flatMap((node) => [op('+'), ...tokensOf(node)])], state));
  }
  return dynamic((data, above, frame) => {
    let text = '';
    for (const node of nodes) text += evaluate(node, data, above, frame) as string;
    return text;
  });
}

/** Compiled `in` evaluates the container before the item and ignores further arguments. */
function inNode(args: unknown, state: CompileState): Node {
  if (!Array.isArray(args)) return callNode('in', args, state);
  const item = compileCompiled(args[0], at(state, 0));
  const container = orEmpty(compileCompiled(args[1], at(state, 1)), at(state, 1));
  return dynamic((data, above, frame) => {
    const haystack = container(data, above, frame);
    return includes(haystack, evaluate(item, data, above, frame));
  });
}

/** `haystack.includes(item)`: strings and lists have it; anything else fails. */
function includes(haystack: unknown, item: unknown): boolean {
  if (typeof haystack === 'string') return haystack.includes(item as string);
  if (Array.isArray(haystack)) return haystack.includes(item);
  throw new TypeError('includes is not a function');
}

/** Compiled `!`/`!!` look at the first argument only. */
function notNode(args: unknown, double: boolean, state: CompileState): Node {
  const node = Array.isArray(args) ? compileCompiled(args[0], at(state, 0)) : compileCompiled(args, state);
  return dynamic((data, above, frame) => isTruthy(evaluate(node, data, above, frame)) === double);
}

function iteratorNode(
  name: 'map' | 'filter' | 'some' | 'none' | 'all',
  args: unknown,
  state: CompileState,
): Node {
  if (!Array.isArray(args)) return refuse(state, `"${name}" needs [list, expression]`);
  // The callback is built as a function of its own; the engine cannot build one from nothing.
  if (args[1] === undefined) return refuse(state, `"${name}" needs an expression to apply`);
  const source = compileCompiled(args[0], at(state, 0));
  const body = compileCompiled(args[1], { ...at(state, 1), iteratorCompile: true, hasIndex: true });
  const iterate = (list: unknown, data: unknown, above: unknown): unknown => {
    if (!Array.isArray(list)) throw new TypeError(`${name}: not a list`);
    const apply = (item: unknown, index: number) =>
      evaluate(body, item, [{ iterator: list, index }, data, above], newFrame(index));
    switch (name) {
      case 'map':
        return list.map(apply);
      case 'filter':
        return list.filter((item, index) => isTruthy(apply(item, index)));
      case 'some':
        return list.some((item, index) => isTruthy(apply(item, index)));
      case 'none':
        return !list.some((item, index) => isTruthy(apply(item, index)));
      default:
        return list.every((item, index) => isTruthy(apply(item, index)));
    }
  };
  if (name === 'all') {
    // `Array.isArray(prev = S) && prev.length === 0 ? false : (prev || []).every(…)`, unparenthesised.
    return pastable(
      [
        atom((data, above, frame) => {
          const list = evaluate(source, data, above, frame);
          frame.prev = list;
          return Array.isArray(list);
        }),
        op('&&'),
        atom((_data, _above, frame) => property(frame.prev, 'length')),
        op('==='),
        literal(0),
        op('?'),
        literal(false),
        op(':'),
        atom((data, above, frame) => iterate(frame.prev || [], data, above)),
      ],
      state,
    );
  }
  const list = orEmpty(source, at(state, 0));
  return dynamic((data, above, frame) => iterate(list(data, above, frame), data, above));
}

function reduceNode(args: unknown, state: CompileState): Node {
  if (!Array.isArray(args)) return refuse(state, '"reduce" needs [list, expression, initial]');
  if (args[1] === undefined) return refuse(state, '"reduce" needs an expression to apply');
  const source = orEmpty(compileCompiled(args[0], at(state, 0)), at(state, 0));
  const body = compileCompiled(args[1], { ...at(state, 1), hasIndex: false });
  const start = args[2] === undefined ? undefined : compileCompiled(args[2], at(state, 2));
  return dynamic((data, above, frame) => {
    const list = source(data, above, frame);
    const initial = start === undefined ? undefined : assertAllowedDepth(evaluate(start, data, above, frame));
    if (!Array.isArray(list)) throw new TypeError('reduce: not a list');
    const scope = [null, data, above];
    const step = (accumulator: unknown, current: unknown) =>
      assertAllowedDepth(evaluate(body, { accumulator, current }, scope, newFrame()));
    return start === undefined ? list.reduce(step) : list.reduce(step, initial);
  });
}

// flagd's engine evaluates some parts of targeting with its interpreter rather than its compiler:
// expressions it folds to constants at load time, and the arguments of lazy operators it could not
// compile (e.g. an `if` with two arguments). The interpreter has its own coercions, reproduced here.
import { pointerToken } from '../../domain/json.ts';
import {
  assertAllowedDepth,
  COMPARISONS,
  type ComparisonOperator,
  coerceArray,
  compareValues,
  get,
  InvalidArguments,
  isStrict,
  isTruthy,
  NotANumber,
  own,
  toNumber,
} from './coercion.ts';
import { fractionalNode, operatorImplementation } from './implementations.ts';
import { varMethod } from './methods.ts';
import { arrayNode, constant, dynamic, evaluate, failing, type Node, newFrame } from './node.ts';
import { isDeterministic, operatorOf, UNARY_OPERATORS } from './operators.ts';
import { splitPath } from './split-path.ts';

const INTERPRETED_ABOVE: readonly unknown[] = [];

/** Compiles with interpreter semantics; throws where the engine's optimizer throws (an unknown operator, a failing constant). */
export function compileInterpreted(logic: unknown, path: string): Node {
  if (Array.isArray(logic))
    return arrayNode(logic.map((item, i) => compileInterpreted(item, `${path}/${i}`)));
  if (!logic || typeof logic !== 'object') return constant(logic);
  const name = operatorOf(logic, path);
  if (name === undefined) return constant(logic);
  const args = (logic as Record<string, unknown>)[name];
  const argsPath = `${path}/${pointerToken(name)}`;
  const idiom = idiomNode(name, args, argsPath);
  if (idiom) return idiom;
  const deterministic = isDeterministic(logic, false, path);
  const node = methodNode(name, args, argsPath);
  if (deterministic) return constant(evaluate(node, undefined, INTERPRETED_ABOVE, newFrame()));
  return node;
}

/** A part the engine optimizes on first use: if that fails, every evaluation reaching it fails. */
export function compileUnit(logic: unknown, path: string): Node {
  let node: Node;
  try {
    node = compileInterpreted(logic, path);
  } catch (error) {
    return failing(error);
  }
  if (node.constant) return node;
  // The engine's first run of a part goes through run(logic, data = {}): no data becomes an empty object.
  const run = node.run;
  return dynamic((data, above, frame) => run(data === undefined ? {} : data, above, frame));
}

/** The optimizer's rewrites, applied before anything else (they change results at the edges). */
function idiomNode(name: string, args: unknown, path: string): Node | undefined {
  if ((name === 'if' || name === '?:') && Array.isArray(args) && args.length === 3) {
    const [condition, then, otherwise] = args.map((item, i) => compileInterpreted(item, `${path}/${i}`)) as [
      Node,
      Node,
      Node,
    ];
    if (condition.constant) return isTruthy(condition.value) ? then : otherwise;
    return dynamic((data, above, frame) =>
      isTruthy(condition.run(data, above, frame))
        ? evaluate(then, data, above, frame)
        : evaluate(otherwise, data, above, frame),
    );
  }
  if (name === 'filter' && Array.isArray(args) && args.length === 2) {
    const test = compileInterpreted(args[1], `${path}/1`);
    if (test.constant) return isTruthy(test.value) ? compileInterpreted(args[0], `${path}/0`) : constant([]);
  }
  if (name in COMPARISONS && Array.isArray(args) && (args.length === 2 || args.length === 3)) {
    const operator = name as ComparisonOperator;
    const nodes = args.map((item, i) => compileInterpreted(item, `${path}/${i}`));
    const run = (data: unknown, above: unknown): boolean => {
      const frame = newFrame();
      const a = evaluate(nodes[0] as Node, data, above, frame);
      const b = evaluate(nodes[1] as Node, data, above, frame);
      if (nodes.length === 2) return compareValues(operator, a, b);
      return (
        compareValues(operator, a, b) &&
        compareValues(operator, b, evaluate(nodes[2] as Node, data, above, frame))
      );
    };
    if (nodes.every((node) => node.constant)) return constant(run(undefined, INTERPRETED_ABOVE));
    return dynamic(run);
  }
  if (name === 'reduce' && Array.isArray(args)) return reduceIdiom(args, path);
  return undefined;
}

/** `reduce` summing or multiplying accumulator and current is rewritten to a plain `+` / `*`. */
function reduceIdiom(args: readonly unknown[], path: string): Node | undefined {
  const [root, mapper, initial] = args;
  if (mapper === null || mapper === undefined) throw new TypeError('reduce: no mapper');
  for (const operator of ['+', '*'] as const) {
    const inner = get(mapper, operator) as Record<number, unknown> & { length?: unknown };
    if (inner?.length !== 2) continue;
    const first = get(inner[0] || 0, 'var');
    const second = get(inner[1] || 0, 'var');
    if (!first || !second) continue;
    const accumulator = first === 'accumulator' || second === 'accumulator';
    const current = first === 'current' || second === 'current';
    if (!(accumulator && current)) continue;
    const start = operator === '+' ? initial || 0 : initial === undefined ? 1 : initial;
    return compileInterpreted({ [operator]: [{ [operator]: root }, start] }, path);
  }
  return undefined;
}

/** An operator applied to its arguments, prepared as the engine's interpreter prepares them. */
function methodNode(name: string, args: unknown, path: string): Node {
  switch (name) {
    case 'if':
    case '?:':
      return lazyIf(args, path);
    case 'or':
    case 'and':
      return lazyLogic(args, name === 'or', path);
    case 'map':
    case 'filter':
      return lazyIterate(args, name, path);
    case 'some':
    case 'none':
    case 'all':
      return lazyQuantifier(args, name, path);
    case 'reduce':
      return lazyReduce(args, path);
  }
  if (name in COMPARISONS) return lazyComparator(args, name as ComparisonOperator, path);
  return eagerNode(name, args, path);
}

function eagerNode(name: string, rawArgs: unknown, path: string): Node {
  const unary = UNARY_OPERATORS.has(name);
  let args = rawArgs;
  if ((!args || typeof args !== 'object') && !unary) args = [args];
  if (Array.isArray(args) && args.length === 1 && unary && !Array.isArray(args[0])) args = args[0];
  if (Array.isArray(args)) {
    const nodes = args.map((item, i) => compileInterpreted(item, `${path}/${i}`));
    if (name === 'fractional') return fractionalNode(nodes);
    const argsNode = arrayNode(nodes);
    const apply = operatorImplementation(name);
    return dynamic((data, above, frame) => apply(evaluate(argsNode, data, above, frame), data, above));
  }
  const apply = operatorImplementation(name);
  const argNode = compileInterpreted(args, path);
  if (!unary) {
    return dynamic((data, above, frame) =>
      apply(coerceArray(evaluate(argNode, data, above, frame)), data, above),
    );
  }
  if (!argNode.constant)
    return dynamic((data, above, frame) => apply(argNode.run(data, above, frame), data, above));
  if (name === 'var') return constantKeyVar(argNode.value);
  const value = argNode.value;
  return dynamic((data, above) => apply(value, data, above));
}

/** The optimizer's shortcuts for `var` with a constant key (they differ from `var` proper on falsy values). */
function constantKeyVar(key: unknown): Node {
  if (!key) {
    return dynamic((data) =>
      data === null || data === undefined || typeof data === 'function' ? null : data,
    );
  }
  // The optimizer calls key.includes / key.startsWith: strings and lists have includes, only strings startsWith.
  if (typeof key !== 'number' && typeof key !== 'string' && !Array.isArray(key)) {
    throw new TypeError('var: key has no includes()');
  }
  if (typeof key === 'number' || (!key.includes('.') && !key.includes('\\'))) {
    const property = key as string;
    return dynamic((data) => {
      if (!data) return null;
      const value = own(data, property);
      return value === undefined || typeof value === 'function' ? null : value;
    });
  }
  if (Array.isArray(key)) throw new TypeError('var: key has no startsWith()');
  if (!key.startsWith('../')) {
    const parts = splitPath(key);
    if (parts.length === 2 || parts.length === 3) {
      return dynamic((data) => {
        // `data && data[a] && data[a][b]`: a falsy step is itself the result.
        let value: unknown = data;
        for (const part of parts) {
          if (!value) break;
          value = own(value, part);
        }
        return value === undefined || typeof value === 'function' ? null : value;
      });
    }
  }
  return dynamic((data, above) => varMethod(key, data, above));
}

export function lazyIf(args: unknown, path: string): Node {
  if (!Array.isArray(args)) return failing(new InvalidArguments());
  if (args.length === 1) return compileUnit(args[0], `${path}/0`);
  if (args.length < 2) return constant(null);
  const units = args.map((item, i) => compileUnit(item, `${path}/${i}`));
  if (units.length % 2 !== 1) units.push(constant(null));
  const otherwise = units.pop() as Node;
  return dynamic((data, above, frame) => {
    for (let i = 0; i < units.length; i += 2) {
      if (isTruthy(evaluate(units[i] as Node, data, above, frame))) {
        return evaluate(units[i + 1] as Node, data, above, frame);
      }
    }
    return evaluate(otherwise, data, above, frame);
  });
}

export function lazyLogic(args: unknown, isOr: boolean, path: string): Node {
  if (!Array.isArray(args)) return failing(new InvalidArguments());
  if (args.length === 0) return constant(null);
  const units = args.map((item, i) => compileUnit(item, `${path}/${i}`));
  return dynamic((data, above, frame) => {
    let value: unknown;
    for (const unit of units) {
      value = evaluate(unit, data, above, frame);
      if (isTruthy(value) === isOr) return value;
    }
    return value;
  });
}

export function lazyComparator(args: unknown, operator: ComparisonOperator, path: string): Node {
  if (!Array.isArray(args) || args.length <= 1) return failing(new InvalidArguments());
  const units = args.map((item, i) => compileUnit(item, `${path}/${i}`));
  const compare = COMPARISONS[operator];
  const strict = isStrict(operator);
  const isStringOrNull = (value: unknown) => typeof value === 'string' || value === null;
  return dynamic((data, above, frame) => {
    let prev = evaluate(units[0] as Node, data, above, frame);
    if (units.length === 2)
      return compareValues(operator, prev, evaluate(units[1] as Node, data, above, frame));
    for (let i = 1; i < units.length; i++) {
      const current = evaluate(units[i] as Node, data, above, frame);
      // No `else`: the engine also runs the numeric checks after a passing string comparison.
      if ((strict || (isStringOrNull(current) && isStringOrNull(prev))) && !compare(prev, current))
        return false;
      if (Number.isNaN(toNumber(current)) && prev !== null) throw new NotANumber();
      if (i === 1 && Number.isNaN(toNumber(prev))) throw new NotANumber();
      if (!compare(+(prev as number), +(current as number))) return false;
      prev = current;
    }
    return true;
  });
}

function lazyIterate(args: unknown, name: 'map' | 'filter', path: string): Node {
  if (!Array.isArray(args)) return failing(new InvalidArguments());
  const [selector, mapper] = args;
  const source = compileUnit(selector, `${path}/0`);
  const plain = !mapper || typeof mapper !== 'object';
  const body = compileUnit(mapper, `${path}/1`);
  return dynamic((data, above, frame) => {
    const list = evaluate(source, data, above, frame) || [];
    if (!Array.isArray(list)) throw new TypeError(`${name}: not a list`);
    const apply = (item: unknown, index: number) =>
      plain ? mapper : evaluate(body, item, [{ iterator: list, index }, data, above], newFrame(index));
    if (name === 'map') return list.map(apply);
    return list.filter((item, index) => isTruthy(apply(item, index)));
  });
}

function lazyQuantifier(args: unknown, name: 'some' | 'none' | 'all', path: string): Node {
  if (!Array.isArray(args)) return failing(new InvalidArguments());
  const source = compileUnit(args[0], `${path}/0`);
  const body = compileUnit(args[1], `${path}/1`);
  return dynamic((data, above, frame) => {
    const list = (evaluate(source, data, above, frame) || []) as ArrayLike<unknown>;
    // These loop over `length`, so unlike map/filter they also walk the characters of a string.
    const scope = [list, data, above];
    if (name === 'all') {
      if (Array.isArray(list) && list.length === 0) return false;
      for (let i = 0; i < list.length; i++) {
        if (!isTruthy(evaluate(body, get(list, i), scope, newFrame(i)))) return false;
      }
      return true;
    }
    let found = false;
    for (let i = 0; i < list.length; i++) {
      if (isTruthy(evaluate(body, get(list, i), scope, newFrame(i)))) {
        found = true;
        break;
      }
    }
    return name === 'some' ? found : !found;
  });
}

function lazyReduce(args: unknown, path: string): Node {
  if (!Array.isArray(args)) return failing(new InvalidArguments());
  const source = compileUnit(args[0], `${path}/0`);
  const body = compileUnit(args[1], `${path}/1`);
  const start = compileUnit(args[2], `${path}/2`);
  return dynamic((data, above, frame) => {
    const initial = assertAllowedDepth(evaluate(start, data, above, frame));
    const list = evaluate(source, data, above, frame) || [];
    if (!Array.isArray(list)) throw new TypeError('reduce: not a list');
    const scope = [list, data, above];
    const step = (accumulator: unknown, current: unknown) =>
      assertAllowedDepth(evaluate(body, { accumulator, current }, scope, newFrame()));
    return initial === undefined ? list.reduce(step) : list.reduce(step, initial);
  });
}

// Operators that evaluate all their arguments first, by name: shared by both evaluation modes.
import {
  type Buckets,
  type BucketVariant,
  fractional,
  fractionalKey,
  pickBucket,
  requireFlagdContext,
  semVer,
  stringAffix,
  toBuckets,
} from './flagd-operators.ts';
import {
  catMethod,
  divideMethod,
  inMethod,
  maxMethod,
  mergeMethod,
  minMethod,
  minusMethod,
  missingMethod,
  missingSomeMethod,
  moduloMethod,
  notMethod,
  plusMethod,
  substrMethod,
  timesMethod,
  varMethod,
} from './methods.ts';
import { dynamic, evaluate, type Node } from './node.ts';

export type Implementation = (args: unknown, data: unknown, above: unknown) => unknown;

const asList = (args: unknown): unknown[] => args as unknown[];

const IMPLEMENTATIONS: Readonly<Record<string, Implementation>> = {
  var: varMethod,
  missing: (args, data) => missingMethod(args, data),
  missing_some: (args, data) => missingSomeMethod(args, data),
  '+': plusMethod,
  '-': minusMethod,
  '*': timesMethod,
  '/': divideMethod,
  '%': moduloMethod,
  min: minMethod,
  max: maxMethod,
  cat: catMethod,
  substr: substrMethod,
  in: (args) => inMethod(asList(args)[0], asList(args)[1]),
  merge: mergeMethod,
  '!': notMethod,
  '!!': (args) => !notMethod(args),
  // flagd-core has no `log`; flagd's Go engine logs and returns the first argument. We only return it.
  log: (args) => (Array.isArray(args) ? args[0] : args),
  fractional: (args, data) => fractional(asList(args), data),
  sem_ver: (args, data) => {
    requireFlagdContext(data);
    return semVer(asList(args));
  },
  starts_with: (args, data) => {
    requireFlagdContext(data);
    return stringAffix('starts_with', asList(args));
  },
  ends_with: (args, data) => {
    requireFlagdContext(data);
    return stringAffix('ends_with', asList(args));
  },
};

export function operatorImplementation(name: string): Implementation {
  const implementation = IMPLEMENTATIONS[name];
  if (!implementation) throw new Error(`no implementation for "${name}"`);
  return implementation;
}

/**
 * `fractional` over argument nodes. When the bucket entries are constants (the usual
 * `["variant", weight]` pairs) their weights are prepared once here, not on every evaluation.
 */
export function fractionalNode(nodes: readonly Node[]): Node {
  const entries = nodes.slice(1);
  const prepared: Buckets | null | undefined = entries.every((node) => node.constant)
    ? toBuckets(entries.map((node) => (node as { value: unknown }).value))
    : undefined;
  return dynamic((data, above, frame): BucketVariant => {
    const args = nodes.map((node) => evaluate(node, data, above, frame));
    if (prepared === undefined || typeof args[0] !== 'string') return fractional(args, data);
    const source = fractionalKey(args, data);
    if (!source) return null;
    return prepared ? pickBucket(prepared, source.key) : null;
  });
}

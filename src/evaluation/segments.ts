import type { EvaluationContext } from '../domain/evaluation-result.ts';
import type { Rule, Segment } from '../domain/segment.ts';
import { compileAttributeRule } from './operators.ts';

/**
 * One context evaluated against one snapshot. Within a pass a segment's membership, or a
 * prerequisite flag's result, is computed once, however many rules of however many flags need it;
 * the pass object is what the memo recognises, so passes never share state and nothing lives at
 * module level.
 */
export class EvaluationPass {}

/** Whether a user (context and its targetingKey text) satisfies a rule or is in a segment, in one pass. */
export type UserPredicate = (
  context: EvaluationContext,
  targetingKey: string | undefined,
  pass: EvaluationPass,
) => boolean;

/** Compiled segments of one project by key. */
export type CompiledSegments = ReadonlyMap<string, UserPredicate>;

/** What a segment rule needs to find the segment it names. */
export interface SegmentLookup {
  get(key: string): UserPredicate | undefined;
}

const NEVER: UserPredicate = () => false;

/** `compute`, run at most once per evaluation pass; later calls in that pass answer the first result. */
export function oncePerPass<R>(
  compute: (
    context: EvaluationContext,
    targetingKey: string | undefined,
    nowSeconds: number,
    pass: EvaluationPass,
  ) => R,
): (
  context: EvaluationContext,
  targetingKey: string | undefined,
  nowSeconds: number,
  pass: EvaluationPass,
) => R {
  let lastPass: EvaluationPass | undefined;
  let result: R;
  return (context, targetingKey, nowSeconds, pass) => {
    if (pass === lastPass) return result;
    result = compute(context, targetingKey, nowSeconds, pass);
    lastPass = pass;
    return result;
  };
}

/** A segment's membership, once per pass (membership ignores the clock). */
function memoized(test: UserPredicate): UserPredicate {
  const once = oncePerPass((context, targetingKey, _nowSeconds, pass) => test(context, targetingKey, pass));
  return (context, targetingKey, pass) => once(context, targetingKey, 0, pass);
}

/** `every` over predicates, specialised so that short lists cost no loop. */
export function allOf(list: readonly UserPredicate[]): UserPredicate {
  if (list.length === 0) return () => true;
  if (list.length === 1) return list[0] as UserPredicate;
  if (list.length === 2) {
    const [a, b] = list as [UserPredicate, UserPredicate];
    return (context, key, pass) => a(context, key, pass) && b(context, key, pass);
  }
  // A copy of exactly this length: a list built by push keeps spare capacity for as long as the snapshot lives.
  const predicates = list.slice();
  return (context, key, pass) => {
    for (let i = 0; i < predicates.length; i++) {
      if (!(predicates[i] as UserPredicate)(context, key, pass)) return false;
    }
    return true;
  };
}

function anyOf(list: readonly UserPredicate[]): UserPredicate {
  if (list.length === 0) return NEVER;
  if (list.length === 1) return list[0] as UserPredicate;
  const predicates = list.slice();
  return (context, key, pass) => {
    for (let i = 0; i < predicates.length; i++) {
      if ((predicates[i] as UserPredicate)(context, key, pass)) return true;
    }
    return false;
  };
}

/** Compiles a rule of either kind; a segment rule naming an unknown segment means "not in it" (before `negate`). */
export function compileRule(rule: Rule, segments: SegmentLookup): UserPredicate {
  if (rule.type === 'segment') {
    const member = segments.get(rule.segment) ?? NEVER;
    return rule.negate === true ? (context, key, pass) => !member(context, key, pass) : member;
  }
  // Attribute predicates ignore the second argument.
  return compileAttributeRule(rule);
}

function membership(segment: Segment, rules: UserPredicate): UserPredicate {
  const excluded = new Set(segment.excluded);
  const included = new Set(segment.included);
  if (excluded.size === 0 && included.size === 0) return rules;
  return (context, key, pass) => {
    if (key !== undefined) {
      if (excluded.has(key)) return false;
      if (included.has(key)) return true;
    }
    return rules(context, key, pass);
  };
}

/**
 * Compiles the segments of one project: `excluded` wins over `included`, which wins over `rules`
 * (`match: all` needs every rule, `any` one; a segment without rules holds only its included users).
 * Never loops: a reference that would close a cycle counts as "not in the segment".
 */
export function compileSegments(segments: readonly Segment[]): CompiledSegments {
  const byKey = new Map(segments.map((s) => [s.key, s]));
  const compiled = new Map<string, UserPredicate>();
  const inProgress = new Set<string>();
  // Segment rules resolve through this view, which compiles what it is asked for, depth first.
  const view: SegmentLookup = {
    get(key: string): UserPredicate | undefined {
      const done = compiled.get(key);
      if (done !== undefined) return done;
      const segment = byKey.get(key);
      if (segment === undefined || inProgress.has(key)) return undefined;
      inProgress.add(key);
      const rules = segment.rules.map((rule) => compileRule(rule, view));
      const rulesHold = rules.length === 0 ? NEVER : segment.match === 'any' ? anyOf(rules) : allOf(rules);
      const predicate = memoized(membership(segment, rulesHold));
      inProgress.delete(key);
      compiled.set(key, predicate);
      return predicate;
    },
  };
  for (const segment of segments) view.get(segment.key);
  return compiled;
}

/**
 * The first cycle of segment references among `segments`, as the keys along it with the first
 * repeated at the end (`['a', 'b', 'a']`), or null when there is none; unknown keys are ignored.
 */
export function findSegmentCycle(segments: readonly Pick<Segment, 'key' | 'rules'>[]): string[] | null {
  const references = new Map<string, string[]>();
  for (const segment of segments) {
    references.set(
      segment.key,
      segment.rules.flatMap((rule) => (rule.type === 'segment' ? [rule.segment] : [])),
    );
  }
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (key: string): string[] | null => {
    if (onPath.has(key)) return [...path.slice(path.indexOf(key)), key];
    if (done.has(key) || !references.has(key)) return null;
    path.push(key);
    onPath.add(key);
    for (const next of references.get(key) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(key);
    done.add(key);
    return null;
  };
  for (const segment of segments) {
    const cycle = visit(segment.key);
    if (cycle) return cycle;
  }
  return null;
}

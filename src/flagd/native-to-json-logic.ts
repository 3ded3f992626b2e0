// Flagstaff's native rules (docs/product.md §2–3) as flagd JsonLogic, built to evaluate exactly as the native
// evaluator in src/evaluation does: values compared by their text (textOf), a list attribute
// matching when one element does, null meaning missing. Operators flagd cannot express are reported.
import type { JsonValue, Rollout } from '../domain/flag.ts';
import type { AttributeRule, Operator, Rule, Segment } from '../domain/segment.ts';
import { OPERATORS } from '../domain/segment.ts';
import { parseInstant } from '../evaluation/dates.ts';
import { textOf } from '../evaluation/operators.ts';
import { parseVersion } from '../evaluation/semver.ts';

/** JsonLogic for a condition, and why it is not exact when it is not. */
export interface Translated {
  readonly logic: JsonValue;
  /** Set when flagd would decide differently for some contexts. */
  readonly inexact?: string;
}

const exact = (logic: JsonValue): Translated => ({ logic });

/** The element a `some` callback is looking at. */
const ELEMENT: JsonValue = { var: '' };
const TARGETING_KEY: JsonValue = { var: 'targetingKey' };

// Type tests that flagd can evaluate without failing (its own operators fail inside `some`, so none are used).
const present = (x: JsonValue): JsonValue => ({ '!==': [x, null] });
const isString = (x: JsonValue): JsonValue => ({ '===': [{ cat: [x] }, x] });
const notList = (x: JsonValue): JsonValue => ({ in: [x, { merge: [x] }] });
const notObjectText = (x: JsonValue): JsonValue => ({ '!==': [{ cat: [x] }, '[object Object]'] });
/** A string, number or boolean: what textOf gives a text for. */
const isScalar = (x: JsonValue): JsonValue => ({
  and: [present(x), notList(x), { or: [isString(x), notObjectText(x)] }],
});
const isNumber = (x: JsonValue): JsonValue => ({
  and: [present(x), { '!': isString(x) }, { '!': { in: [x, [true, false]] } }, notList(x), notObjectText(x)],
});
/** A list attribute matches when one element does; `merge` makes a one-element list of anything else. */
const anyElement = (x: JsonValue, test: JsonValue): JsonValue => ({ some: [{ merge: [x] }, test] });

const isScalarValue = (value: unknown): value is string | number | boolean => textOf(value) !== undefined;

/** Every value whose textOf is `text`: flagd's `in` then compares by type, exactly. */
function candidates(text: string): (string | number | boolean)[] {
  const result: (string | number | boolean)[] = [text];
  const number = Number(text);
  if (Number.isFinite(number) && String(number) === text) result.push(number);
  if (text === 'true') result.push(true);
  if (text === 'false') result.push(false);
  return result;
}

/** Values whose text is one of `texts`, for `{"in": [value, …]}`. */
export function textsIn(texts: readonly string[]): JsonValue {
  return [...new Set(texts)].flatMap(candidates);
}

const NUMERIC: Partial<Record<Operator, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
const SEM_VER: Partial<Record<Operator, string>> = {
  semver_eq: '=',
  semver_gt: '>',
  semver_gte: '>=',
  semver_lt: '<',
  semver_lte: '<=',
};
const NEGATIVE_FORMS: Partial<Record<Operator, Operator>> = {
  not_equals: 'equals',
  not_in: 'in',
  not_contains: 'contains',
};
const KNOWN: ReadonlySet<string> = new Set(OPERATORS);

const NUMBERS_AS_TEXT = 'numbers written as text ("42") match in Flagstaff, not in flagd';

/** The test of a positive operator on a present attribute, or null when the native evaluator never matches. */
function positiveTest(operator: Operator, rule: AttributeRule, x: JsonValue): Translated | null {
  if (operator === 'in') {
    if (!Array.isArray(rule.values) || !rule.values.every(isScalarValue)) return null;
    return exact(anyElement(x, { in: [ELEMENT, textsIn(rule.values.map((v) => textOf(v) as string))] }));
  }
  const numeric = NUMERIC[operator];
  if (numeric !== undefined) {
    if (typeof rule.value !== 'number' || !Number.isFinite(rule.value)) return null;
    return {
      logic: anyElement(x, { and: [isNumber(ELEMENT), { [numeric]: [ELEMENT, rule.value] }] }),
      inexact: NUMBERS_AS_TEXT,
    };
  }
  const semVer = SEM_VER[operator];
  if (semVer !== undefined) {
    const version = parseVersion(rule.value);
    // flagd's sem_ver parses versions as parseVersion does; it fails inside `some`, so it reads the value itself.
    return version === null ? null : exact({ sem_ver: [x, semVer, version.version] });
  }
  if (operator === 'before' || operator === 'after') {
    if (parseInstant(rule.value) === undefined) return null;
    return { logic: false, inexact: `"${operator}" compares dates, which flagd's JsonLogic cannot parse` };
  }
  const expected = textOf(rule.value);
  if (expected === undefined) return null;
  const text: JsonValue = { cat: [ELEMENT] };
  switch (operator) {
    case 'equals':
      return exact(anyElement(x, { in: [ELEMENT, textsIn([expected])] }));
    case 'contains':
      // flagd reads an empty text as "no text" in `in` (it falls back to []), so "" is handled apart.
      if (expected === '') return exact(anyElement(x, isScalar(ELEMENT)));
      return exact(anyElement(x, { and: [isScalar(ELEMENT), { in: [expected, text] }] }));
    case 'starts_with':
    case 'ends_with': {
      if (expected === '') return exact(anyElement(x, isScalar(ELEMENT)));
      const from = operator === 'starts_with' ? [0, expected.length] : [-expected.length];
      return exact(
        anyElement(x, { and: [isScalar(ELEMENT), { '===': [{ substr: [text, ...from] }, expected] }] }),
      );
    }
    case 'matches':
      return { logic: false, inexact: 'regular expressions ("matches") have no flagd equivalent' };
    default:
      return null;
  }
}

/** An attribute rule: missing (or null) matches only `not_exists`, then `negate` inverts. */
export function translateAttributeRule(rule: AttributeRule): Translated {
  if (typeof rule.attribute !== 'string' || !KNOWN.has(rule.operator)) return exact(false);
  const x: JsonValue = { var: rule.attribute };
  const negate = rule.negate === true;
  if (rule.operator === 'exists' || rule.operator === 'not_exists') {
    const wanted = (rule.operator === 'exists') !== negate;
    return exact(wanted ? present(x) : { '!': present(x) });
  }
  const positive = NEGATIVE_FORMS[rule.operator];
  const test = positiveTest(positive ?? rule.operator, rule, x);
  // An unusable operand never matches natively, whatever `negate` says.
  if (test === null) return exact(false);
  if (test.logic === false) return test;
  const holds: JsonValue = { and: [present(x), positive === undefined ? test.logic : { '!': test.logic }] };
  return { logic: negate ? { '!': holds } : holds, ...(test.inexact ? { inexact: test.inexact } : {}) };
}

const all = (items: readonly JsonValue[]): JsonValue =>
  items.length === 1 ? (items[0] as JsonValue) : { and: [...items] };
const any = (items: readonly JsonValue[]): JsonValue =>
  items.length === 1 ? (items[0] as JsonValue) : { or: [...items] };

/** Segments of a project by key, translated once each (with the reasons they are inexact). */
export class SegmentTranslator {
  readonly #segments: ReadonlyMap<string, Segment>;
  readonly #done = new Map<string, Translated & { readonly reasons: readonly string[] }>();

  constructor(segments: readonly Segment[]) {
    this.#segments = new Map(segments.map((segment) => [segment.key, segment]));
  }

  has(key: string): boolean {
    return this.#segments.has(key);
  }

  /**
   * Membership of a segment as self-contained JsonLogic (segments it names are inlined):
   * excluded, then included targetingKeys, then its rules (`all` or `any`; none: nobody).
   */
  translate(
    key: string,
    chain: readonly string[] = [],
  ): Translated & { readonly reasons: readonly string[] } {
    const done = this.#done.get(key);
    if (done) return done;
    const segment = this.#segments.get(key);
    // An unknown segment, or one closing a cycle, holds nobody natively.
    if (!segment || chain.includes(key)) return { logic: false, reasons: [] };
    const reasons: string[] = [];
    const rules = segment.rules.map((rule) => {
      const translated = this.translateRule(rule, [...chain, key]);
      reasons.push(...translated.reasons);
      return translated.logic;
    });
    let logic: JsonValue = rules.length === 0 ? false : segment.match === 'any' ? any(rules) : all(rules);
    const branches: JsonValue[] = [];
    if (segment.excluded.length > 0) branches.push({ in: [TARGETING_KEY, textsIn(segment.excluded)] }, false);
    if (segment.included.length > 0) branches.push({ in: [TARGETING_KEY, textsIn(segment.included)] }, true);
    if (branches.length > 0) logic = { if: [...branches, logic] };
    const result = { logic, reasons, ...(reasons.length > 0 ? { inexact: reasons.join('; ') } : {}) };
    if (chain.length === 0) this.#done.set(key, result);
    return result;
  }

  /** A rule of either kind; `reasons` lists what is inexact in it (a segment's reasons included). */
  translateRule(
    rule: Rule,
    chain: readonly string[] = [],
  ): { readonly logic: JsonValue; readonly reasons: string[] } {
    if (rule.type === 'segment') {
      const member = this.translate(rule.segment, chain);
      const reasons =
        member.reasons.length > 0 ? [`segment "${rule.segment}": ${member.reasons.join('; ')}`] : [];
      return { logic: rule.negate === true ? { '!': member.logic } : member.logic, reasons };
    }
    const translated = translateAttributeRule(rule);
    const reasons = translated.inexact ? [`${rule.attribute} ${rule.operator}: ${translated.inexact}`] : [];
    return { logic: translated.logic, reasons };
  }
}

/**
 * A rollout as flagd's `fractional` over `seed + text of the bucketBy attribute` (the same hash and
 * buckets as the native rollout); null (the default variant) when that attribute has no text.
 */
export function translateRollout(rollout: Rollout, flagKey: string): JsonValue {
  const x: JsonValue = { var: rollout.bucketBy ?? 'targetingKey' };
  const entries: JsonValue[] = rollout.weights.map((w) => [w.variant, w.weight]);
  return { if: [isScalar(x), { fractional: [{ cat: [rollout.seed ?? flagKey, x] }, ...entries] }, null] };
}

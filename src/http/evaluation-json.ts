import type { EvaluationDetail } from '../domain/evaluation-result.ts';

/** The content type of an evaluation answer, as Fastify's serialiser would have set it. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The seed's result shape plus `variant`; the playground's extra detail stays out of it. */
export const wire = (d: EvaluationDetail) => ({
  key: d.key,
  type: d.type,
  value: d.value,
  reason: d.reason,
  variant: d.variant,
  ...(d.errorCode === undefined ? {} : { errorCode: d.errorCode, errorMessage: d.errorMessage ?? '' }),
});

/**
 * A result's wire form (`toWire`) as JSON text, made once per result. A snapshot builds every
 * result a flag can give once, frozen (evaluation/compile-flag.ts), so the text is made once per
 * (flag, variant, reason, rule) and dropped with the snapshot: an answer is then a lookup, not a
 * serialisation (docs/decisions/1791). Only a frozen result's text is kept: it cannot go stale.
 * The text must be what the route's response schema would write: the tests compare them.
 */
export function jsonPerResult(
  toWire: (detail: EvaluationDetail) => unknown,
): (detail: EvaluationDetail) => string {
  const texts = new WeakMap<EvaluationDetail, string>();
  return (detail) => {
    const known = texts.get(detail);
    if (known !== undefined) return known;
    const text = JSON.stringify(toWire(detail));
    if (Object.isFrozen(detail)) texts.set(detail, text);
    return text;
  };
}

/** `GET /v1/flags/{key}`'s answer (and each result of the bulk evaluation) as JSON text. */
export const evaluationJson = jsonPerResult(wire);

import Fastify from 'fastify';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import type { EvaluationDetail } from '../domain/evaluation-result.ts';
import { EvaluationResultSchema } from '../domain/schemas/evaluation-schemas.ts';
import { toOfrepSuccess } from '../openfeature/ofrep/ofrep-wire.ts';
import { evaluationJson, jsonPerResult, wire } from './evaluation-json.ts';
import { OfrepSuccessSchema, ofrepSuccessJson } from './routes/ofrep.ts';

const metadata = Object.freeze({ team: 'checkout', tier: 2, beta: true, 'odd "key"': 'ünïcødé \u2028' });
const result = (fields: Partial<EvaluationDetail>): EvaluationDetail =>
  Object.freeze({
    key: 'checkout-redesign',
    type: 'string',
    value: 'control',
    reason: 'split',
    variant: 'control',
    flagMetadata: metadata,
    ...fields,
  } as EvaluationDetail);

/** Results of every shape an answer can take, frozen as a snapshot builds them. */
const RESULTS: EvaluationDetail[] = [
  result({}),
  result({ reason: 'targeting', ruleId: 'r1', targetMatched: true }),
  result({ type: 'boolean', value: true, variant: 'on', reason: 'static' }),
  result({ type: 'number', value: 0.1 + 0.2, variant: 'third', reason: 'default' }),
  result({ type: 'number', value: -0, variant: 'zero' }),
  result({ type: 'object', value: Object.freeze({ a: [1, 'two', null, { b: false }], 'c"\n': '\ud800' }) }),
  result({ value: 'quotes " and \\ and \u0000 and emoji 🚩', variant: 'odd "variant"' }),
  result({ value: null, variant: null, reason: 'default' }),
  result({ value: null, variant: null, reason: 'disabled', flagMetadata: Object.freeze({}) }),
  result({
    value: null,
    variant: null,
    reason: 'error',
    errorCode: 'PARSE_ERROR',
    errorMessage: 'The targeting is not valid JsonLogic: "if" needs 3 arguments.',
  }),
];

/** What Fastify writes for `payload` through a route whose 200 response has `schema`. */
async function serialisedBySchema(schema: TSchema, payloads: readonly unknown[]): Promise<string[]> {
  const app = Fastify();
  app.post('/:index', { schema: { response: { 200: schema } } }, (request) => {
    return payloads[Number((request.params as { index: string }).index)];
  });
  const bodies = await Promise.all(
    payloads.map(async (_, index) => (await app.inject({ method: 'POST', url: `/${index}` })).body),
  );
  await app.close();
  return bodies;
}

describe('evaluation answers sent as text made once per result', () => {
  it('are byte for byte what GET /v1/flags/{key} wrote through its response schema', async () => {
    const expected = await serialisedBySchema(EvaluationResultSchema, RESULTS.map(wire));
    expect(RESULTS.map(evaluationJson)).toEqual(expected);
    // Asked again, the same text: the one made the first time.
    expect(RESULTS.map(evaluationJson)).toEqual(expected);
  });

  it('are byte for byte what the OFREP route wrote through its response schema for a success', async () => {
    const successes = RESULTS.filter((r) => r.reason !== 'error');
    const expected = await serialisedBySchema(OfrepSuccessSchema, successes.map(toOfrepSuccess));
    expect(successes.map(ofrepSuccessJson)).toEqual(expected);
  });

  it('never keep the text of a result that could still change', () => {
    const live = { ...result({}), value: 'before' } as {
      -readonly [K in keyof EvaluationDetail]: EvaluationDetail[K];
    };
    const json = jsonPerResult(wire);
    expect(JSON.parse(json(live)).value).toBe('before');
    live.value = 'after';
    expect(JSON.parse(json(live)).value).toBe('after');
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { expectValidationFailed } from '../support/validation-failed.ts';

/** The operators that compare an attribute with one value (the list operators take `values`). */
const VALUE_OPERATORS = ['not_equals', 'contains', 'not_contains', 'starts_with', 'ends_with', 'matches'];

describeEachDatabase('conditions whose operator needs a value refuse an empty one', (database) => {
  let server: TestServer;
  let flagId: string;
  beforeAll(async () => {
    server = await startTestServer(database);
    flagId = (await server.call('POST', '/v1/projects/default/flags', { body: { key: 'checkout' } })).body.id;
  });
  afterAll(() => server.close());

  const condition = (operator: string, operand: object) => ({
    type: 'attribute',
    attribute: 'country',
    operator,
    ...operand,
  });
  /** PATCHes the flag's production rules to one rule with the one condition. */
  const patchCondition = (operator: string, operand: object) =>
    server.call('PATCH', `/v1/flags/${flagId}`, {
      body: { rules: [{ conditions: [condition(operator, operand)], serve: { variant: 'on' } }] },
    });
  const flagVersion = async () =>
    (await server.call('GET', '/v1/projects/default/flags/checkout')).body.version;

  it('a segment with `country equals ""` is a 400 at the value, and nothing is created', async () => {
    const res = await server.call('POST', '/v1/projects/default/segments', {
      body: { key: 'blank', rules: [condition('equals', { value: '' })] },
    });
    expectValidationFailed(res, {
      path: '/rules/0/value',
      message: 'is empty: enter a value (an empty attribute is matched by matches "^$")',
    });
    expect((await server.call('GET', '/v1/projects/default/segments/blank')).status).toBe(404);
  });

  it.each(VALUE_OPERATORS)(
    'a flag condition `country %s ""` is a 400 at the value, and nothing is saved',
    async (operator) => {
      const before = await flagVersion();
      const res = await patchCondition(operator, { value: '' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('/environments/production/rules/0/conditions/0/value');
      expect(await flagVersion()).toBe(before);
    },
  );

  it('lists refuse an empty entry or no entry at all, and nothing is saved', async () => {
    const before = await flagVersion();
    expectValidationFailed(await patchCondition('in', { values: ['NL', ''] }), {
      path: '/environments/production/rules/0/conditions/0/values/1',
      message: 'is empty: enter a value or remove it',
    });
    expectValidationFailed(await patchCondition('not_in', { values: [] }), {
      path: '/environments/production/rules/0/conditions/0/values',
      message: 'is empty: not_in needs at least one value',
    });
    expect(await flagVersion()).toBe(before);
  });

  it('an empty attribute is still matched on purpose with matches "^$"', async () => {
    const res = await server.call('PATCH', `/v1/flags/${flagId}`, {
      body: {
        enabled: true,
        defaultVariant: 'off',
        rules: [{ conditions: [condition('matches', { value: '^$' })], serve: { variant: 'on' } }],
      },
    });
    expect(res.status).toBe(200);
    const evaluated = await server.call('POST', '/v1/flags/checkout/evaluate?project=default', {
      body: { attributes: { country: '' } },
    });
    expect(evaluated.body).toMatchObject({ value: true, reason: 'targeting' });
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

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

  it('a segment with `country equals ""` is a 400 at the value, and nothing is created', async () => {
    const res = await server.call('POST', '/v1/projects/default/segments', {
      body: { key: 'blank', rules: [condition('equals', { value: '' })] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        path: '/rules/0/value',
        message: 'is empty: enter a value (an empty attribute is matched by matches "^$")',
      },
    ]);
    expect((await server.call('GET', '/v1/projects/default/segments/blank')).status).toBe(404);
  });

  it('every value operator refuses "", and lists refuse an empty entry or no entry at all', async () => {
    for (const operator of [
      'not_equals',
      'contains',
      'not_contains',
      'starts_with',
      'ends_with',
      'matches',
    ]) {
      const res = await server.call('PATCH', `/v1/flags/${flagId}`, {
        body: { rules: [{ conditions: [condition(operator, { value: '' })], serve: { variant: 'on' } }] },
      });
      expect(res.status, operator).toBe(400);
      expect(res.body.errors[0].path, operator).toBe('/environments/production/rules/0/conditions/0/value');
    }
    const list = await server.call('PATCH', `/v1/flags/${flagId}`, {
      body: { rules: [{ conditions: [condition('in', { values: ['NL', ''] })], serve: { variant: 'on' } }] },
    });
    expect(list.body.errors).toEqual([
      {
        path: '/environments/production/rules/0/conditions/0/values/1',
        message: 'is empty: enter a value or remove it',
      },
    ]);
    const none = await server.call('PATCH', `/v1/flags/${flagId}`, {
      body: { rules: [{ conditions: [condition('not_in', { values: [] })], serve: { variant: 'on' } }] },
    });
    expect(none.body.errors).toEqual([
      {
        path: '/environments/production/rules/0/conditions/0/values',
        message: 'is empty: not_in needs at least one value',
      },
    ]);
    expect((await server.call('GET', '/v1/projects/default/flags/checkout')).body.version).toBe(1);
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

import { afterAll, beforeAll, expect, it } from 'vitest';
import { OFREP_REASONS } from '../../src/openfeature/ofrep/ofrep-wire.ts';
import { describeEachDatabase } from '../support/database.ts';
import type { TestServer } from '../support/server.ts';
import { startVariedServer, VARIED_CONTEXTS, VARIED_FLAGS } from './support/varied-project.ts';

const COUNTRIES = ['NL', 'BE', 'DE', undefined];
const PLANS = ['pro', 'free', undefined];
const EMAILS = ['ann@faas.com', 'bob@example.com', undefined];

/** The varied contexts plus generated ones, so that rollouts land in every bucket. */
const CONTEXTS: readonly Record<string, unknown>[] = [
  ...VARIED_CONTEXTS,
  ...Array.from({ length: 60 }, (_, i) => {
    const context: Record<string, unknown> = { targetingKey: `agree-${i}`, company: `c${i % 7}` };
    for (const [name, values] of [
      ['country', COUNTRIES],
      ['plan', PLANS],
      ['email', EMAILS],
    ] as const) {
      const value = values[i % values.length];
      if (value !== undefined) context[name] = value;
    }
    return context;
  }),
];

interface RestResult {
  key: string;
  value: unknown;
  reason: keyof typeof OFREP_REASONS;
  variant: string | null;
}

/** What OFREP must answer, given the REST answer for the same flag, context and environment. */
function expectAgreement(rest: RestResult, ofrep: Record<string, unknown>, context: Record<string, unknown>) {
  const where = `${rest.key} for ${JSON.stringify(context)}`;
  if (ofrep.errorCode === 'TARGETING_KEY_MISSING') {
    // The one intended difference: REST serves the default to a user it cannot bucket.
    expect(rest.reason, where).toBe('default');
    expect(context.targetingKey, where).toBeUndefined();
    return;
  }
  expect(ofrep.key, where).toBe(rest.key);
  expect(ofrep.reason, where).toBe(OFREP_REASONS[rest.reason]);
  if (rest.variant === null) {
    expect(ofrep, where).not.toHaveProperty('value');
    expect(ofrep, where).not.toHaveProperty('variant');
  } else {
    expect(ofrep.value, where).toEqual(rest.value);
    expect(ofrep.variant, where).toBe(rest.variant);
  }
}

describeEachDatabase('the REST evaluate endpoint and OFREP agree', (database) => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    ({ server, key } = await startVariedServer(database));
  });
  afterAll(() => server.close());

  it.each(['production', 'development'])(
    'on every flag of a varied project, for every context, one flag at a time (%s)',
    async (environment) => {
      let compared = 0;
      for (const flag of Object.keys(VARIED_FLAGS)) {
        for (const context of CONTEXTS) {
          const [rest, ofrep] = await Promise.all([
            server.call('POST', `/v1/flags/${flag}/evaluate`, {
              key,
              body: { environment, attributes: context },
            }),
            server.call('POST', `/ofrep/v1/evaluate/flags/${flag}`, {
              key,
              body: { context },
              headers: { 'x-flagstaff-environment': environment },
            }),
          ]);
          expect(rest.status).toBe(200);
          expect([200, 400]).toContain(ofrep.status);
          expectAgreement(rest.body, ofrep.body, context);
          compared++;
        }
      }
      expect(compared).toBe(Object.keys(VARIED_FLAGS).length * CONTEXTS.length);
    },
  );

  it('in bulk: the same flags in the same order with the same answers', async () => {
    for (const context of CONTEXTS) {
      const [rest, ofrep] = await Promise.all([
        server.call('POST', '/v1/evaluate', { key, body: { attributes: context } }),
        server.call('POST', '/ofrep/v1/evaluate/flags', { key, body: { context } }),
      ]);
      expect(ofrep.body.flags.map((f: { key: string }) => f.key)).toEqual(
        rest.body.flags.map((f: RestResult) => f.key),
      );
      rest.body.flags.forEach((result: RestResult, i: number) => {
        expectAgreement(result, ofrep.body.flags[i], context);
      });
    }
  });
});

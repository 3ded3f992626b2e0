import { Ajv, type AnySchema } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVIRONMENT_FIELDS } from '../../src/domain/flag.ts';
import { FlagSchema, FlagSummarySchema } from '../../src/domain/schemas/flag-schema.ts';
import { describeEachDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// The response schemas are the one wire contract (decision 1870): the serializer writes what they
// name, the OpenAPI document publishes them, and the dashboard and the CLI take their types.

/** A schema as JSON, without TypeBox's own markers. */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as AnySchema;
const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv) => void)(ajv);
const fits = (schema: unknown, answer: unknown) => {
  const validate = ajv.compile(plain(schema));
  return validate(answer) ? [] : (validate.errors ?? []);
};

/** The value schema of a record (`Type.Record`): its one pattern property, or its additional one. */
const recordValue = (record: {
  patternProperties?: Record<string, unknown>;
  additionalProperties?: unknown;
}) =>
  (Object.values(record.patternProperties ?? {})[0] ?? record.additionalProperties) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };

const ENVIRONMENT = {
  enabled: true,
  offVariant: 'off',
  defaultVariant: 'off',
  defaultRollout: {
    bucketBy: 'company',
    weights: [
      { variant: 'on', weight: 1 },
      { variant: 'off', weight: 3 },
    ],
  },
  targets: [{ variant: 'on', values: ['ada', 'grace'] }],
  rules: [
    {
      description: 'Dutch staff',
      segments: ['staff'],
      conditions: [
        { type: 'attribute', attribute: 'country', operator: 'in', values: ['NL', 'BE'] },
        { type: 'segment', segment: 'staff', negate: true },
      ],
      serve: { variant: 'on' },
    },
  ],
  prerequisites: [{ flag: 'base', variants: ['on'] }],
};

describeEachDatabase('the wire contract', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(database);
    for (const [path, body] of [
      ['/v1/projects/default/segments', { key: 'staff' }],
      ['/v1/projects/default/flags', { key: 'base', metadata: { team: 'growth' } }],
      [
        '/v1/projects/default/flags',
        { key: 'checkout', metadata: { team: 'payments', tier: 2, beta: true } },
      ],
    ] as const) {
      expect((await server.call('POST', path, { body })).status).toBe(201);
    }
    const patched = await server.call('PATCH', '/v1/projects/default/flags/checkout?environment=production', {
      body: ENVIRONMENT,
    });
    expect(patched.status).toBe(200);
  });
  afterAll(() => server.close());

  it("answers every field of a flag's environment that was written, as the flag's schema says", async () => {
    const flag = await server.call('GET', '/v1/projects/default/flags/checkout');
    expect(flag.status).toBe(200);
    expect(fits(FlagSchema, flag.body)).toEqual([]);
    expect(flag.body.metadata).toEqual({ team: 'payments', tier: 2, beta: true });
    const { rules, ...rest } = ENVIRONMENT;
    expect(flag.body.environments.production).toMatchObject(rest);
    expect(flag.body.environments.production.rules).toEqual([{ ...rules[0], id: expect.any(String) }]);
  });

  it("answers a page of flags as the list's schema says, each in every environment", async () => {
    const list = await server.call('GET', '/v1/projects/default/flags');
    expect(list.status).toBe(200);
    expect(fits({ type: 'array', items: FlagSummarySchema }, list.body)).toEqual([]);
    const checkout = list.body.find((f: { key: string }) => f.key === 'checkout');
    expect(checkout).toMatchObject({
      enabled: true,
      stale: null,
      environments: { production: { enabled: true }, development: { enabled: false } },
    });
  });
});

describe('the OpenAPI document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("describes a flag's configuration in each environment field by field, not as any value", async () => {
    const doc = await server.call('GET', '/v1/openapi.json', { key: null });
    const flag =
      doc.body.paths['/v1/projects/{projectId}/flags/{flagKey}'].get.responses['200'].content[
        'application/json'
      ].schema;
    const environment = recordValue(flag.properties.environments);
    // The fields a patch with ?environment= may change, in the domain's order.
    expect(Object.keys(environment.properties ?? {})).toEqual([...ENVIRONMENT_FIELDS]);
    expect(environment.required).toEqual(['enabled', 'offVariant', 'defaultVariant', 'targets', 'rules']);
    const metadata = recordValue(flag.properties.metadata) as { anyOf?: { type: string }[] };
    expect(metadata.anyOf?.map((s) => s.type)).toEqual(['string', 'number', 'boolean']);
  });
});

import { expect } from 'vitest';
import { rolloutWeights, variantList } from '../../support/builders.ts';
import type { TestDatabase } from '../../support/database.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

/** One flag of the varied project: how it is created, and its configuration per environment. */
interface FlagSeed {
  readonly create: Record<string, unknown>;
  readonly environments?: Record<string, Record<string, unknown>>;
  readonly archived?: boolean;
}

/**
 * A project with a flag for each type and each reason: rules on a segment, individual targets,
 * rollouts, JsonLogic targeting, disabled flags with and without an off variant, a flag with no
 * default variant, metadata and an archived flag. Production and development differ.
 */
export const VARIED_FLAGS: Readonly<Record<string, FlagSeed>> = {
  'new-checkout': {
    create: { key: 'new-checkout', metadata: { team: 'checkout', ticket: 42, experiment: false } },
    environments: {
      production: {
        enabled: true,
        defaultVariant: 'off',
        rules: [{ segments: ['dutch'], serve: { variant: 'on' } }],
      },
      development: { enabled: true, defaultVariant: 'on' },
    },
  },
  'banner-text': {
    create: {
      key: 'banner-text',
      type: 'string',
      variants: variantList({ short: 'Hi', long: 'Hello there' }),
    },
    environments: {
      production: {
        enabled: true,
        defaultVariant: 'short',
        targets: [{ variant: 'long', values: ['vip-1'] }],
      },
    },
  },
  discount: {
    create: {
      key: 'discount',
      type: 'number',
      variants: variantList({ none: 0, ten: 10, half: 0.5 }),
    },
    environments: {
      production: {
        enabled: true,
        defaultVariant: 'none',
        defaultRollout: {
          weights: rolloutWeights({ ten: 50, half: 50 }),
        },
      },
    },
  },
  theme: {
    create: {
      key: 'theme',
      type: 'object',
      variants: variantList({
        light: { background: '#fff', contrast: 1 },
        dark: { background: '#000', contrast: 2, nested: { ok: true } },
      }),
      metadata: { owner: 'design' },
    },
    environments: { production: { enabled: true, defaultVariant: 'dark' } },
  },
  'legacy-api': {
    create: { key: 'legacy-api' },
    environments: { production: { enabled: false } },
  },
  sunset: {
    create: {
      key: 'sunset',
      type: 'string',
      variants: [{ key: 'soon', value: '2030' }],
    },
    environments: { production: { enabled: false, offVariant: null } },
  },
  'pro-rollout': {
    create: { key: 'pro-rollout' },
    environments: {
      production: {
        enabled: true,
        defaultVariant: 'off',
        rules: [
          {
            conditions: [{ type: 'attribute', attribute: 'plan', operator: 'equals', value: 'pro' }],
            serve: {
              rollout: {
                weights: rolloutWeights({ on: 1, off: 1 }),
              },
            },
          },
        ],
      },
    },
  },
  'by-company': {
    create: { key: 'by-company' },
    environments: {
      production: {
        enabled: true,
        defaultVariant: 'off',
        defaultRollout: {
          bucketBy: 'company',
          weights: rolloutWeights({ on: 30, off: 70 }),
        },
      },
    },
  },
  'email-color': {
    create: {
      key: 'email-color',
      type: 'string',
      variants: variantList({ red: 'red', blue: 'blue', green: 'green' }),
    },
    environments: {
      production: {
        enabled: true,
        defaultVariant: 'blue',
        targeting: {
          if: [
            { ends_with: [{ var: 'email' }, '@faas.com'] },
            'red',
            {
              fractional: [
                ['green', 50],
                ['blue', 50],
              ],
            },
          ],
        },
      },
    },
  },
  'no-default': {
    create: {
      key: 'no-default',
      type: 'string',
      variants: [{ key: 'only', value: 'only' }],
    },
    environments: {
      production: {
        enabled: true,
        defaultVariant: null,
        rules: [
          {
            conditions: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
            serve: { variant: 'only' },
          },
        ],
      },
    },
  },
  retired: {
    create: { key: 'retired' },
    environments: { production: { enabled: true, defaultVariant: 'on' } },
    archived: true,
  },
};

/** Contexts that between them reach every branch of the varied project's flags. */
export const VARIED_CONTEXTS: readonly Record<string, unknown>[] = [
  { targetingKey: 'user-1', country: 'NL' },
  { targetingKey: 'user-2', country: 'BE', plan: 'pro' },
  { targetingKey: 'vip-1', email: 'ann@faas.com', company: 'acme' },
  { targetingKey: 'user-3', email: 'bob@example.com', plan: 'pro', company: 'initech' },
  { targetingKey: 'user-4', plan: 'free', company: 'globex' },
  { targetingKey: '', country: 'NL' },
  { country: 'NL', plan: 'pro' },
  {},
];

/** Creates the varied project's segment and flags in `project` (default: the bootstrapped one). */
export async function seedVariedProject(server: TestServer, project = 'default'): Promise<void> {
  const segment = await server.call('POST', `/v1/projects/${project}/segments`, {
    body: {
      key: 'dutch',
      rules: [{ type: 'attribute', attribute: 'country', operator: 'equals', value: 'NL' }],
    },
  });
  expect(segment.status).toBe(201);
  for (const seed of Object.values(VARIED_FLAGS)) {
    const created = await server.call('POST', `/v1/projects/${project}/flags`, { body: seed.create });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const patch: Record<string, unknown> = {};
    if (seed.environments) patch.environments = seed.environments;
    if (seed.archived) patch.archived = true;
    if (Object.keys(patch).length > 0) {
      const patched = await server.call('PATCH', `/v1/flags/${created.body.id}`, { body: patch });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    }
  }
}

/** Creates an API key over the management API and returns its secret. */
export async function createKey(
  server: TestServer,
  body: { role: string; environments?: string[] | null },
  project: string | null = 'default',
): Promise<string> {
  const path = project === null ? '/v1/api-keys' : `/v1/projects/${project}/api-keys`;
  const res = await server.call('POST', path, { body: { name: `test ${body.role}`, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.secret;
}

/** Finds a flag's id by key. */
export async function flagId(server: TestServer, key: string, project = 'default'): Promise<string> {
  const res = await server.call('GET', `/v1/projects/${project}/flags/${key}`);
  expect(res.status).toBe(200);
  return res.body.id;
}

/** A test server over `database` with the varied project seeded, and an evaluator key of its `default`. */
export async function startVariedServer(
  database: TestDatabase,
): Promise<{ server: TestServer; key: string }> {
  const server = await startTestServer(database);
  await seedVariedProject(server);
  return { server, key: await createKey(server, { role: 'evaluator' }) };
}

import {
  BOOLEAN_VARIANTS,
  type Flag,
  type FlagEnvironment,
  type JsonValue,
  type Rollout,
  type Variant,
} from '../../src/domain/flag.ts';
import type { Metric } from '../../src/domain/metric.ts';
import type { Environment, Project } from '../../src/domain/project.ts';
import type { Segment } from '../../src/domain/segment.ts';
import type { StoredWebhook } from '../../src/storage/webhook-store.ts';

// The domain records tests and benchmarks build by hand, with every field a record must have.
// Each builder names the record by its key and takes the fields a test cares about as overrides,
// so that a new field of Flag or Segment is added here once, not in every suite.

/** The creation time of built records: fixed, so that records compare equal across runs. */
export const BUILT_AT = '2025-01-01T00:00:00Z';

/** What every built record of a project starts with: an id from its key, its key as name, version 1. */
function record(prefix: string, key: string) {
  return {
    id: `${prefix}_${key}`,
    projectId: 'prj_1',
    key,
    name: key,
    description: '',
    version: 1,
    createdAt: BUILT_AT,
    updatedAt: BUILT_AT,
  };
}

/** A flag's settings in one environment: on, serving `on` (`off` when switched off), no targets or rules. */
export function buildFlagEnvironment(fields: Partial<FlagEnvironment> = {}): FlagEnvironment {
  return { enabled: true, offVariant: 'off', defaultVariant: 'on', targets: [], rules: [], ...fields };
}

/** A boolean flag (variants `on` and `off`) of project `prj_1`, in no environment until `fields` say so. */
export function buildFlag(key: string, fields: Partial<Flag> = {}): Flag {
  return {
    ...record('flg', key),
    type: 'boolean',
    variants: BOOLEAN_VARIANTS,
    tags: [],
    archived: false,
    metadata: {},
    environments: {},
    ...fields,
  };
}

/** The same flag settings in each of `environmentKeys`. */
export function inEnvironments(
  environmentKeys: readonly string[],
  environment: FlagEnvironment = buildFlagEnvironment(),
): Flag['environments'] {
  return Object.fromEntries(environmentKeys.map((key) => [key, environment]));
}

/** A segment of project `prj_1` that matches everyone (`all` of no rules) until `fields` say otherwise. */
export function buildSegment(key: string, fields: Partial<Segment> = {}): Segment {
  return { ...record('seg', key), match: 'all', rules: [], included: [], excluded: [], ...fields };
}

/** A conversion metric of project `prj_1` counting the event of its key over 72 hours, to increase. */
export function buildMetric(key: string, fields: Partial<Metric> = {}): Metric {
  return { ...record('met', key), event: key, kind: 'conversion', window: 72, goal: 'increase', ...fields };
}

/** A project of that key. */
export function buildProject(key: string, fields: Partial<Project> = {}): Project {
  const { projectId: _, ...project } = record('prj', key);
  return { ...project, ...fields };
}

/** An unprotected environment of that key in `projectId`. */
export function buildEnvironment(
  projectId: string,
  key: string,
  fields: Partial<Environment> = {},
): Environment {
  return { ...record('env', key), projectId, protected: false, ...fields };
}

/** Variants written as `{ key: value }`, in the order written (keys are variant keys, never numbers). */
export function variantList(values: Readonly<Record<string, JsonValue>>): Variant[] {
  return Object.entries(values).map(([key, value]) => ({ key, value }));
}

/** Rollout weights written as `{ variant: weight }`, in the order written. */
export function rolloutWeights(weights: Readonly<Record<string, number>>): Rollout['weights'] {
  return Object.entries(weights).map(([variant, weight]) => ({ variant, weight }));
}

/**
 * A webhook of a project at an address nothing listens on (port 9 of loopback), as stored where
 * private addresses are allowed: tests store it directly, since the API refuses such an address.
 */
export function buildUnreachableWebhook(
  id: string,
  projectId: string,
  events: readonly string[],
  at = new Date().toISOString(),
): StoredWebhook {
  return {
    id,
    projectId,
    url: 'http://127.0.0.1:9/hook',
    format: 'json',
    events: [...events],
    secret: 'a secret of sixteen+',
    active: true,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
}

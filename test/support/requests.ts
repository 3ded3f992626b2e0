import type { JsonValue } from '../../src/domain/flag.ts';
import { variantList } from './builders.ts';

// Request bodies that many HTTP suites send, written once so that a suite states only what it varies.

/** The body of POST /v1/projects/{key}/flags for a flag of `type` with the variants `{ key: value }`. */
export function flagBody(key: string, type: string, values: Readonly<Record<string, JsonValue>>) {
  return { key, type, variants: variantList(values) };
}

/** The environments of a project with a staging step, for POST /v1/projects: what a larger team runs. */
export const WITH_STAGING = [
  { key: 'development', name: 'Development' },
  { key: 'staging', name: 'Staging' },
  { key: 'production', name: 'Production' },
];

/**
 * The PATCH body that switches a boolean flag on in an environment, serving `on` to half the units
 * and `off` to the other half: the split an experiment compares.
 */
export const EVEN_SPLIT = {
  enabled: true,
  defaultRollout: {
    weights: [
      { variant: 'on', weight: 50 },
      { variant: 'off', weight: 50 },
    ],
  },
};

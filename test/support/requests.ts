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

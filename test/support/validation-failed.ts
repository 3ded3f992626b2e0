import { expect } from 'vitest';
import type { FieldError } from '../../src/domain/errors.ts';
import type { TestResponse } from './server.ts';

/**
 * The request was refused as invalid (400 `validation_failed`, docs/errors.md) with exactly these
 * field errors, in this order: what the API tells a client to correct, and nothing more.
 */
export function expectValidationFailed(
  answer: Pick<TestResponse, 'status' | 'body'>,
  ...errors: readonly FieldError[]
): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.code).toBe('validation_failed');
  expect(answer.body.errors).toEqual(errors);
}

import { expect } from 'vitest';
import type { TestResponse } from './server.ts';

/** The resource was created (201): its address in Location and its first version as the ETag. */
export function expectCreated(
  answer: Pick<TestResponse, 'status' | 'body' | 'headers'>,
  location: string,
): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  expect(answer.headers.get('location')).toBe(location);
  expect(answer.headers.get('etag')).toBe('"1"');
}

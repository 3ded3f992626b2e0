import type { Page } from 'playwright-core';
import { afterEach, expect } from 'vitest';

/**
 * Call in a describe: each of its tests then fails on the uncaught script errors of the pages it
 * watched, since a page that throws is broken however it looks. Returns `watch`, for each page.
 */
export function failOnPageErrors(): (page: Page) => void {
  let errors: string[] = [];
  afterEach(() => {
    const seen = errors;
    errors = [];
    expect(seen).toEqual([]);
  });
  return (page) => {
    page.on('pageerror', (error) => errors.push(error.message));
  };
}

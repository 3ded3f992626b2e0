import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { FLAG_TYPES } from '../../src/domain/flag.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

it('the README names the flag types as the API and the dashboard do, never "JSON" flags', () => {
  const intro = README.split('\n\n')[1] ?? '';
  for (const type of FLAG_TYPES) expect(intro).toContain(type);
  expect(intro).not.toMatch(/\bJSON\)/);
  expect(README).not.toMatch(/JSON flags?\b/i);
});

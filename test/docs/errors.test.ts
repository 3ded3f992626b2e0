import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/domain/errors.ts';
import { problem } from '../../src/http/problem.ts';

const DOC = readFileSync(join(import.meta.dirname, '../../docs/errors.md'), 'utf8');

/** The rows of docs/errors.md's table: code, status, title, meaning. */
const documented = [...DOC.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| ([^|]+) \| ([^|]+) \|$/gm)].map((row) => ({
  code: row[1],
  status: Number(row[2]),
  title: row[3]?.trim(),
  meaning: row[4]?.trim(),
}));

describe('docs/errors.md and the error catalogue', () => {
  it('lists every code of the catalogue with its status, title and meaning, and nothing else', () => {
    expect(documented).toEqual(
      Object.entries(ERROR_CATALOGUE).map(([code, { status, title, meaning }]) => ({
        code,
        status,
        title,
        meaning,
      })),
    );
  });

  it('answers each code over HTTP with the status and title the page gives', () => {
    for (const { code, status, title } of documented) {
      expect(problem(code as keyof typeof ERROR_CATALOGUE, 'detail')).toMatchObject({ code, status, title });
    }
  });
});

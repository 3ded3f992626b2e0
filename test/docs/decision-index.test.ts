import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DECISIONS = join(import.meta.dirname, '../../docs/decisions');
const RECORDS = readdirSync(DECISIONS)
  .filter((file) => /^\d{4}-.+\.md$/.test(file))
  .sort();
const INDEX = readFileSync(join(DECISIONS, 'README.md'), 'utf8');

/** `| [NNNN](NNNN-title.md) | title | status |`: the index's rows, by the file each links. */
const ROWS = [...INDEX.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| ([^|]+) \| ([^|]+) \|$/gm)].map(
  ([, number, file, title, status]) => ({
    number: number as string,
    file: file as string,
    title: (title as string).trim(),
    status: (status as string).trim(),
  }),
);

const STATUS = /^(?:accepted|superseded by (\d{4})|accepted, in part superseded by (\d{4}))$/;

describe('the index of decision records (docs/decisions/README.md)', () => {
  it('reads a row for most records, so a malformed table cannot pass by listing none', () => {
    expect(RECORDS.length).toBeGreaterThan(100);
    expect(ROWS.length).toBeGreaterThanOrEqual(RECORDS.length);
  });

  it.each(RECORDS)('lists %s once, with its title and a status', (file) => {
    const rows = ROWS.filter((row) => row.file === file);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.number).toBe(file.slice(0, 4));
    expect(row?.title).not.toBe('');
    expect(row?.status).toMatch(STATUS);
  });

  it('lists only records that exist', () => {
    expect(ROWS.map((row) => row.file).filter((file) => !RECORDS.includes(file))).toEqual([]);
  });

  it('names, for a superseded record, a listed successor, and the record says so itself', () => {
    const superseded = ROWS.flatMap((row) => {
      const [, whole, part] = STATUS.exec(row.status) ?? [];
      const by = whole ?? part;
      return by === undefined ? [] : [{ ...row, by }];
    });
    expect(superseded.length).toBeGreaterThan(0);
    for (const { file, by } of superseded) {
      expect(
        ROWS.map((row) => row.number),
        `${file}: successor ${by}`,
      ).toContain(by);
      const text = readFileSync(join(DECISIONS, file), 'utf8');
      expect(text, `${file} names its successor`).toMatch(new RegExp(`[Ss]uperseded[^.]*${by}`));
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  contextOfJson,
  contextOfQuery,
  contextOfRows,
  contextQuery,
  newRow,
  rowsOfContext,
  rowText,
  rowValue,
} from './user-context.ts';

describe('the user view context', () => {
  it('sends numbers, booleans and JSON as such and anything else as text', () => {
    expect(rowValue('42')).toBe(42);
    expect(rowValue('true')).toBe(true);
    expect(rowValue('["a","b"]')).toEqual(['a', 'b']);
    expect(rowValue('NL')).toBe('NL');
    expect(rowValue('"42"')).toBe('42');
    expect(rowValue('01234')).toBe('01234');
    for (const value of ['NL', 42, true, null, ['a'], { plan: 'pro' }, '42', 'true', '"quoted"'])
      expect(rowValue(rowText(value)), JSON.stringify(value)).toEqual(value);
  });

  it('makes a context of the key and rows, skipping blank rows and refusing what is ambiguous', () => {
    expect(contextOfRows('ada', [newRow('country', 'NL'), newRow('', ''), newRow('age', '42')])).toEqual({
      context: { targetingKey: 'ada', country: 'NL', age: 42 },
    });
    expect(contextOfRows('', [])).toEqual({ context: {} });
    expect(contextOfRows('ada', [newRow('country', 'NL'), newRow('country', 'BE'), newRow('', 'x')])).toEqual(
      {
        errors: [
          { path: '/attributes/1/name', message: '"country" appears twice' },
          { path: '/attributes/2/name', message: 'is required for a value' },
        ],
      },
    );
    expect(contextOfRows('ada', [newRow('targetingKey', 'bob')])).toMatchObject({
      errors: [{ path: '/attributes/0/name' }],
    });
  });

  it('turns a context back into the key and rows that make it', () => {
    const context = { targetingKey: 'ada', country: 'NL', age: 42, zip: '42' };
    const { targetingKey, rows } = rowsOfContext(context);
    expect(targetingKey).toBe('ada');
    expect(rows.map((r) => [r.name, r.value])).toEqual([
      ['country', 'NL'],
      ['age', '42'],
      ['zip', '"42"'],
    ]);
    expect(contextOfRows(targetingKey, rows)).toEqual({ context });
    // A targeting key that is not text stays in the context, as a row.
    expect(rowsOfContext({ targetingKey: 7 })).toMatchObject({
      targetingKey: '',
      rows: [{ name: 'targetingKey' }],
    });
  });

  it('reads JSON only when it is an object', () => {
    expect(contextOfJson('{"targetingKey":"ada"}')).toEqual({ context: { targetingKey: 'ada' } });
    expect(contextOfJson('[1]')).toMatchObject({ errors: [{ path: '/context' }] });
    expect(contextOfJson('{')).toMatchObject({ errors: [{ path: '/context' }] });
  });

  it('keeps the environment and context in the address, and ignores an unreadable one', () => {
    const query = contextQuery('staging', { targetingKey: 'ada', plan: 'pro & more' });
    expect(contextOfQuery(query)).toEqual({
      environment: 'staging',
      context: { targetingKey: 'ada', plan: 'pro & more' },
    });
    expect(contextOfQuery('?environment=production&context=%5B1%5D')).toEqual({ environment: 'production' });
    expect(contextOfQuery('')).toEqual({});
  });
});

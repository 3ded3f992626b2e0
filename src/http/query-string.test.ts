import { describe, expect, it } from 'vitest';
import { parseQueryString } from './query-string.ts';

const parsed = (query: string) => ({ ...parseQueryString(query) });

describe('parseQueryString', () => {
  it('decodes the percent-encoded JSON of ?attributes=', () => {
    const attributes = { targetingKey: 'user 1', email: 'ann+test@example.com', tags: ['ä', '€'] };
    const query = `environment=production&attributes=${encodeURIComponent(JSON.stringify(attributes))}`;
    expect(parsed(query)).toEqual({ environment: 'production', attributes: JSON.stringify(attributes) });
  });

  it('reads + as a space, in names and values, before decoding', () => {
    expect(parsed('a+b=c+d&e=%2B')).toEqual({ 'a b': 'c d', e: '+' });
  });

  it('gives a name without = the empty value, and skips empty pairs', () => {
    expect(parsed('flag&&x=1&')).toEqual({ flag: '', x: '1' });
    expect(parsed('')).toEqual({});
  });

  it('collects a repeated name into an array, so that a schema expecting one value refuses it', () => {
    expect(parsed('environment=a&environment=b&environment=c')).toEqual({ environment: ['a', 'b', 'c'] });
  });

  it('keeps text that is not valid percent-encoding as it came', () => {
    expect(parsed('attributes=%7B%zz&name=%E0%A4%A')).toEqual({ attributes: '%7B%zz', name: '%E0%A4%A' });
  });

  it('keeps everything after the first = in the value', () => {
    expect(parsed('token=a=b==')).toEqual({ token: 'a=b==' });
  });

  it('builds an object that inherits nothing, so no name reaches Object.prototype', () => {
    const result = parseQueryString('__proto__=x&constructor=y');
    expect(Object.getPrototypeOf(Object.getPrototypeOf(result))).toBeNull();
    expect('toString' in result).toBe(false);
    expect(Object.entries(result)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

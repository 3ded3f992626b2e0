import { describe, expect, it } from 'vitest';
import { counted, pageRange } from './counted.ts';

describe('counts in words', () => {
  it('says one in the singular and groups thousands', () => {
    expect(counted(1, 'approval')).toBe('1 approval');
    expect(counted(2, 'approval')).toBe('2 approvals');
    expect(counted(10001, 'flag')).toBe('10,001 flags');
    expect(counted(1, 'flag is', 'flags are')).toBe('1 flag is');
  });

  it('a page range says "of 1 segment", not "of 1 segments"', () => {
    expect(pageRange({ items: [1], total: 1, offset: 0 }, 'segments')).toBe('1–1 of 1 segment');
    expect(pageRange({ items: new Array(100).fill(0), total: 10001, offset: 0 }, 'flags')).toBe(
      '1–100 of 10,001 flags',
    );
    expect(pageRange({ items: [], total: 0, offset: 0 }, 'API keys')).toBe('None of 0 API keys');
  });
});

import { describe, expect, it } from 'vitest';
import type { FlagChange } from './change-feed.ts';
import { encodeNotice, NoticeParts, parseNotice } from './notice-payloads.ts';

describe('parseNotice', () => {
  it.each([
    ['k', { kind: 'keys' }],
    ['p:prj_1:7', { kind: 'project', projectId: 'prj_1', revision: 7 }],
    ['p:prj_1:', { kind: 'project', projectId: 'prj_1', revision: undefined }],
    [
      'p:prj_1:8:w:flg_2',
      { kind: 'project', projectId: 'prj_1', revision: 8, written: ['flg_2'], removed: [] },
    ],
    [
      'p:prj_1:9:r:old-key.v2',
      { kind: 'project', projectId: 'prj_1', revision: 9, written: [], removed: ['old-key.v2'] },
    ],
    [
      'p:prj_1:9:w:flg_2,flg_3:r:a,b',
      { kind: 'project', projectId: 'prj_1', revision: 9, written: ['flg_2', 'flg_3'], removed: ['a', 'b'] },
    ],
    ['p:prj_1:9:w:', { kind: 'project', projectId: 'prj_1', revision: 9, written: [], removed: [] }],
    ['p:prj_1:9:x:what', { kind: 'resync' }],
    ['something else', { kind: 'resync' }],
    [undefined, { kind: 'resync' }],
  ])('reads %s', (payload, notice) => {
    expect(parseNotice(payload)).toEqual(notice);
  });
});

/** What a node listening hears of the payloads, in the order sent. */
function heard(payloads: readonly (string | undefined)[]) {
  const parts = new NoticeParts();
  return payloads.flatMap((payload) => parts.add(payload) ?? []);
}

describe('encodeNotice', () => {
  const many = Array.from(
    { length: 500 },
    (_, i) => `flg_01m8y763dae2nxm9778nwd${String(i).padStart(4, '0')}`,
  );

  it.each<[FlagChange | undefined, object]>([
    [undefined, {}],
    [
      { written: ['flg_2'], removed: [] },
      { written: ['flg_2'], removed: [] },
    ],
    [
      { written: [], removed: ['old-key.v2'] },
      { written: [], removed: ['old-key.v2'] },
    ],
    [
      { written: [], removed: [] },
      { written: [], removed: [] },
    ],
    [
      { written: many, removed: ['gone'] },
      { written: many, removed: ['gone'] },
    ],
  ])('writes what a listener reads back (%#)', (change, flags) => {
    expect(heard(encodeNotice('prj_1', 8, change))).toEqual([
      { kind: 'project', projectId: 'prj_1', revision: 8, ...flags },
    ]);
  });

  it('keeps every payload under PostgreSQL 8,000 bytes, in parts when a write names many flags', () => {
    const payloads = encodeNotice('prj_1', 8, { written: many, removed: [] });
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
  });

  it('announces nothing from a notice whose parts did not all arrive', () => {
    const [first, second, third] = encodeNotice('prj_1', 8, { written: many, removed: [] });
    expect(heard([first, third])).toEqual([]);
    expect(heard([second, third])).toEqual([]);
    // The next notice of the project is heard whole, whatever was left unfinished.
    expect(heard([first, 'p:prj_1:9'])).toEqual([{ kind: 'project', projectId: 'prj_1', revision: 9 }]);
  });
});

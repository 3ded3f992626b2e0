import { describe, expect, it } from 'vitest';
import type { FlagChange } from './change-feed.ts';
import { encodeNotice, parseNotice } from './postgres-change-feed.ts';

describe('parseNotice', () => {
  it.each([
    ['k', { kind: 'keys' }],
    ['p:prj_1:7', { kind: 'project', projectId: 'prj_1', revision: 7 }],
    ['p:prj_1:', { kind: 'project', projectId: 'prj_1', revision: undefined }],
    ['p:prj_1:8:w:flg_2', { kind: 'project', projectId: 'prj_1', revision: 8, written: 'flg_2' }],
    ['p:prj_1:9:r:old-key.v2', { kind: 'project', projectId: 'prj_1', revision: 9, removed: 'old-key.v2' }],
    ['p:prj_1:9:x:what', { kind: 'resync' }],
    ['something else', { kind: 'resync' }],
    [undefined, { kind: 'resync' }],
  ])('reads %s', (payload, notice) => {
    expect(parseNotice(payload)).toEqual(notice);
  });
});

describe('encodeNotice', () => {
  it.each<[FlagChange | undefined, object]>([
    [undefined, {}],
    [{ written: 'flg_2' }, { written: 'flg_2' }],
    [{ removed: 'old-key.v2' }, { removed: 'old-key.v2' }],
  ])('writes what parseNotice reads back: %j', (change, flag) => {
    expect(parseNotice(encodeNotice('prj_1', 8, change))).toEqual({
      kind: 'project',
      projectId: 'prj_1',
      revision: 8,
      ...flag,
    });
  });
});

import { expect, it } from 'vitest';
import { LOCAL_ACCOUNT } from '../../src/domain/account.ts';
import { newId } from '../../src/domain/ids.ts';
import type { ProvisionedGroup } from '../../src/domain/provisioned-group.ts';
import { type StoredAccount, UniqueViolation } from '../../src/storage/store.ts';
import { describeEachDatabase, storeOfEachTest } from '../support/database.ts';

const AT = '2026-01-02T03:04:05.000Z';

const anAccount = (): StoredAccount => {
  const id = newId('acc');
  return {
    id,
    email: `${id}@example.com`,
    name: id,
    passwordHash: 'not a usable hash',
    role: 'evaluator',
    projectId: null,
    createdAt: AT,
    lastLoginAt: null,
    version: 1,
    ...LOCAL_ACCOUNT,
  };
};

const aGroup = (displayName: string, members: string[]): ProvisionedGroup => ({
  id: newId('grp'),
  displayName,
  externalId: null,
  members: [...members].sort(),
  version: 1,
  createdAt: AT,
  updatedAt: AT,
});

/** The GroupStore role and the password-session sweep (decisions 1890, 1891), on every database. */
describeEachDatabase('group store', (database) => {
  const store = storeOfEachTest(database);

  it('keeps a group with its members, finds it by name or externalId, and pages groups in id order', async () => {
    const [a, b] = [anAccount(), anAccount()];
    for (const account of [a, b]) await store.insertAccount(account);
    const admins = aGroup('Admins', [a.id, b.id]);
    const devs = { ...aGroup('devs', [b.id]), externalId: 'okta-g2' };
    await store.insertGroup(admins);
    await store.insertGroup(devs);
    expect(await store.findGroupById(admins.id)).toStrictEqual(admins);
    expect((await store.groupsFrom({ displayName: 'Admins' }, 0, 10)).items).toStrictEqual([admins]);
    // Names are compared exactly, as claim values are.
    expect((await store.groupsFrom({ displayName: 'admins' }, 0, 10)).total).toBe(0);
    expect((await store.groupsFrom({ externalId: 'okta-g2' }, 0, 10)).items).toStrictEqual([devs]);
    const all = await store.groupsFrom({}, 1, 1);
    expect(all.total).toBe(2);
    expect(all.items.map((g) => g.id)).toEqual([[admins.id, devs.id].sort()[1]]);
    expect(await store.groupNamesOfAccount(b.id)).toEqual(['Admins', 'devs']);
    expect((await store.provisionedGroupNames(['devs', 'nobody', 'Admins'])).sort()).toEqual([
      'Admins',
      'devs',
    ]);
    await expect(store.insertGroup(aGroup('devs', []))).rejects.toBeInstanceOf(UniqueViolation);
  });

  it('replaces a group only at the version it was read, and deletes memberships with the group or the account', async () => {
    const [a, b] = [anAccount(), anAccount()];
    for (const account of [a, b]) await store.insertAccount(account);
    const group = aGroup('support', [a.id]);
    await store.insertGroup(group);
    const next = { ...group, displayName: 'helpdesk', members: [b.id], version: 2 };
    expect(await store.updateGroup(next, 1)).toBe(true);
    expect(await store.updateGroup({ ...next, members: [a.id], version: 3 }, 1)).toBe(false);
    expect(await store.findGroupById(group.id)).toStrictEqual(next);
    expect(await store.groupNamesOfAccount(a.id)).toEqual([]);

    await store.deleteAccount(b.id);
    expect((await store.findGroupById(group.id))?.members).toEqual([]);
    await store.updateGroup({ ...next, members: [a.id], version: 3 }, 2);
    expect(await store.deleteGroup(group.id)).toBe(true);
    expect(await store.deleteGroup(group.id)).toBe(false);
    expect(await store.groupNamesOfAccount(a.id)).toEqual([]);
  });

  it('ends only the sessions a password started', async () => {
    const account = anAccount();
    await store.insertAccount(account);
    const session = (singleSignOn: boolean) => {
      const id = newId('ses');
      return {
        id,
        accountId: account.id,
        tokenHash: `token-of-${id}`,
        createdAt: AT,
        expiresAt: '2999-01-01T00:00:00.000Z',
        singleSignOn,
      };
    };
    const [byPassword, bySso] = [session(false), session(true)];
    await store.insertSession(byPassword);
    await store.insertSession(bySso);
    expect(await store.deletePasswordSessions()).toBeGreaterThanOrEqual(1);
    expect(await store.findSessionByHash(byPassword.tokenHash)).toBeUndefined();
    expect(await store.findSessionByHash(bySso.tokenHash)).toMatchObject({ id: bySso.id });
  });
});

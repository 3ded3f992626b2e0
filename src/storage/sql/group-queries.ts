import type { ProvisionedGroup } from '../../domain/provisioned-group.ts';
import type { GroupFilter, GroupStore } from '../store.ts';
import { chunks, ROWS_PER_STATEMENT } from './chunked.ts';
import type { ProvisionedGroupsTable } from './database.ts';
import { findOne, mapUnique, type SqlContext, touchedOne } from './sql-context.ts';

const columnsOf = (group: ProvisionedGroup): ProvisionedGroupsTable => ({
  id: group.id,
  display_name: group.displayName,
  external_id: group.externalId,
  version: group.version,
  created_at: group.createdAt,
  updated_at: group.updatedAt,
});

/** The groups of these rows with their members, read in one query. */
async function withMembers(
  { db }: SqlContext,
  rows: readonly ProvisionedGroupsTable[],
): Promise<ProvisionedGroup[]> {
  if (rows.length === 0) return [];
  const memberships = await db
    .selectFrom('provisioned_group_members')
    .selectAll()
    .where(
      'group_id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  return rows.map((row) => ({
    id: row.id,
    displayName: row.display_name,
    externalId: row.external_id,
    // Sorted here: PostgreSQL's collation need not order ids as code points do.
    members: memberships
      .filter((m) => m.group_id === row.id)
      .map((m) => m.account_id)
      .sort(),
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }));
}

async function writeMembers(tx: SqlContext, group: ProvisionedGroup): Promise<void> {
  await tx.db.deleteFrom('provisioned_group_members').where('group_id', '=', group.id).execute();
  for (const slice of chunks(group.members, ROWS_PER_STATEMENT)) {
    await tx.db
      .insertInto('provisioned_group_members')
      .values(slice.map((account_id) => ({ group_id: group.id, account_id })))
      .execute();
  }
}

/** A page of the groups that match a SCIM filter, with how many match in all. */
async function groupsFrom(
  context: SqlContext,
  filter: GroupFilter,
  offset: number,
  limit: number,
): ReturnType<GroupStore['groupsFrom']> {
  let query = context.db.selectFrom('provisioned_groups');
  if (filter.displayName !== undefined) query = query.where('display_name', '=', filter.displayName);
  if (filter.externalId !== undefined) query = query.where('external_id', '=', filter.externalId);
  const [counted, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    query.selectAll().orderBy('id').offset(offset).limit(limit).execute(),
  ]);
  return { total: Number(counted.n), items: await withMembers(context, rows) };
}

/** SCIM groups (decision 1891): one row a group, one row a membership. */
export function groupQueries(context: SqlContext): GroupStore {
  const { db, atomically } = context;
  return {
    groupsFrom: (filter, offset, limit) => groupsFrom(context, filter, offset, limit),

    async findGroupById(id) {
      const row = await findOne(
        db.selectFrom('provisioned_groups').selectAll().where('id', '=', id),
        (r) => r,
      );
      return row === undefined ? undefined : (await withMembers(context, [row]))[0];
    },

    insertGroup: (group) =>
      atomically(async (tx) => {
        await mapUnique(tx.db.insertInto('provisioned_groups').values(columnsOf(group)).execute());
        await writeMembers(tx, group);
      }),

    updateGroup: (group, expectedVersion) =>
      atomically(async (tx) => {
        const { id: _, created_at: __, ...columns } = columnsOf(group);
        const updated = await mapUnique(
          tx.db
            .updateTable('provisioned_groups')
            .set(columns)
            .where('id', '=', group.id)
            .where('version', '=', expectedVersion)
            .executeTakeFirst(),
        );
        if (!touchedOne(updated)) return false;
        await writeMembers(tx, group);
        return true;
      }),

    async deleteGroup(id) {
      // The memberships go with it (on delete cascade).
      return touchedOne(await db.deleteFrom('provisioned_groups').where('id', '=', id).executeTakeFirst());
    },

    async groupNamesOfAccount(accountId) {
      const rows = await db
        .selectFrom('provisioned_group_members as m')
        .innerJoin('provisioned_groups as g', 'g.id', 'm.group_id')
        .select('g.display_name')
        .where('m.account_id', '=', accountId)
        .orderBy('g.display_name')
        .execute();
      return rows.map((row) => row.display_name);
    },

    async provisionedGroupNames(names) {
      if (names.length === 0) return [];
      const rows = await db
        .selectFrom('provisioned_groups')
        .select('display_name')
        .where('display_name', 'in', [...names])
        .execute();
      return rows.map((row) => row.display_name);
    },
  };
}

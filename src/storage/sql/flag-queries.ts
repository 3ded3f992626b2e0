import { type ExpressionBuilder, sql } from 'kysely';
import type { Flag, FlagEnvironment } from '../../domain/flag.ts';
import type { EnabledFilter, FlagStore, PageRequest, SegmentStore, StaleFilter } from '../store.ts';
import { readByUnits } from './chunked.ts';
import { keyOrNameContains } from './columns-contain.ts';
import type { Database } from './database.ts';
import { flagEnvironmentFromRow, flagEnvironmentToColumns, flagFromRow, flagToRow } from './rows.ts';
import { locked, mapUnique, paged, type SqlContext } from './sql-context.ts';
import { allOfProject, deleteById, updateVersioned } from './versioned-rows.ts';

/** The columns of a flag's configuration in one environment, named by the environment's key. */
function configurations(db: SqlContext['db']) {
  return db
    .selectFrom('flag_environments')
    .innerJoin('environments', 'environments.id', 'flag_environments.environment_id')
    .select([
      'flag_environments.flag_id',
      'environments.key',
      'flag_environments.enabled',
      'flag_environments.config',
    ]);
}

type ConfigurationRow = Awaited<ReturnType<ReturnType<typeof configurations>['execute']>>[number];

/** The flags of `rows`, in their order, each with its configurations found in `configs`. */
function assembled(rows: readonly Database['flags'][], configs: readonly ConfigurationRow[]): Flag[] {
  const byFlag = new Map<string, Record<string, FlagEnvironment>>(rows.map((r) => [r.id, {}]));
  for (const c of configs) {
    const environments = byFlag.get(c.flag_id);
    if (environments) environments[c.key] = flagEnvironmentFromRow(c);
  }
  return rows.map((r) => flagFromRow(r, byFlag.get(r.id) ?? {}));
}

/** Rows as the database read them. */
const asRead = <Row>(row: Row): Row => row;

/** Loads every environment's configuration of the given flags in one query per chunk. */
async function withEnvironments(db: SqlContext['db'], rows: Database['flags'][]): Promise<Flag[]> {
  if (rows.length === 0) return [];
  const configs = await readByUnits(
    rows.map((r) => r.id),
    (ids) => configurations(db).where('flag_environments.flag_id', 'in', ids).execute(),
    asRead,
  );
  return assembled(rows, configs);
}

/**
 * Every flag of a project with its configurations: two queries whatever the number of flags.
 * Not by chunks of ids, as a few flags are read: at 50,000 flags that took 100 queries, each of
 * which PostgreSQL could answer by scanning every configuration (no statistics yet after a bulk
 * import), 3 s of a node's start (docs/performance.md, "Lean at 50,000 flags").
 */
async function projectFlags(db: SqlContext['db'], projectId: string): Promise<Flag[]> {
  const rows = await allOfProject(db, 'flags', projectId, 'key');
  if (rows.length === 0) return [];
  return assembled(rows, await configurations(db).where('environments.project_id', '=', projectId).execute());
}

/** The flags of these ids that exist, with their configurations: a query per chunk of ids, not one per flag. */
export async function flagsByIds(db: SqlContext['db'], ids: readonly string[]): Promise<Flag[]> {
  const rows = await readByUnits(
    ids,
    (chunk) => db.selectFrom('flags').selectAll().where('id', 'in', chunk).execute(),
    asRead,
  );
  return withEnvironments(db, rows);
}

/**
 * Upserts the flag's configuration of each environment it lists, naming the environment by its
 * key: the id comes from a subquery, so a flag write never lists the project's environments.
 */
async function writeFlagEnvironments(db: SqlContext['db'], flag: Flag): Promise<void> {
  for (const [environmentKey, config] of Object.entries(flag.environments)) {
    const columns = flagEnvironmentToColumns(config);
    await db
      .insertInto('flag_environments')
      .columns(['flag_id', 'environment_id', 'enabled', 'config'])
      .expression((eb) =>
        eb
          .selectFrom('environments')
          .select([
            sql<string>`cast(${flag.id} as text)`.as('flag_id'),
            'id',
            sql<number>`cast(${columns.enabled} as integer)`.as('enabled'),
            sql<string>`cast(${columns.config} as text)`.as('config'),
          ])
          .where('project_id', '=', flag.projectId)
          .where('key', '=', environmentKey),
      )
      .onConflict((oc) => oc.columns(['flag_id', 'environment_id']).doUpdateSet(columns))
      .execute();
  }
}

/**
 * The store's form of the stale rule (StaleFilter; insights/stale.ts holds the rule): usage rows name
 * flags by key, and only rows evaluated in the window count, which a deleted namesake's never are.
 * Both subqueries read the usage table's primary key (project, environment, flag key, variant).
 */
function staleIn(projectId: string, { environment, windowStartMinute, stale }: StaleFilter) {
  // A flag counts once its creation minute is the window's start or earlier.
  const createdBy = new Date((windowStartMinute + 1) * 60_000).toISOString();
  return (eb: ExpressionBuilder<Database, 'flags'>) => {
    const recent = () =>
      eb
        .selectFrom('flag_variant_usage')
        .where('flag_variant_usage.project_id', '=', projectId)
        .where('flag_variant_usage.environment', '=', environment)
        .where(sql<boolean>`flag_variant_usage.flag_key = flags.key`)
        .where('flag_variant_usage.last_minute', '>=', windowStartMinute);
    const isStale = eb.and([
      eb('flags.created_at', '<', createdBy),
      eb(
        recent().select((e) => e.fn.countAll().as('served')),
        '<=',
        1,
      ),
      eb.not(eb.exists(recent().select('variant').where('first_minute', '>', windowStartMinute))),
    ]);
    return stale ? isStale : eb.not(isStale);
  };
}

/**
 * The list's `enabled` filter (EnabledFilter): on where the flag's configuration in the environment
 * says so, off where it says otherwise or the flag has none there, as the list's summary reads it.
 * One lookup of the configuration's primary key (flag, environment) per flag.
 */
function enabledIn(projectId: string, { environment, enabled }: EnabledFilter) {
  return (eb: ExpressionBuilder<Database, 'flags'>) => {
    const on = eb.exists(
      eb
        .selectFrom('flag_environments')
        .select('flag_environments.flag_id')
        .where(sql<boolean>`flag_environments.flag_id = flags.id`)
        .where('flag_environments.environment_id', '=', (inner) =>
          inner
            .selectFrom('environments')
            .select('environments.id')
            .where('environments.project_id', '=', projectId)
            .where('environments.key', '=', environment),
        )
        .where('flag_environments.enabled', '=', 1),
    );
    return enabled ? on : eb.not(on);
  };
}

/** The flag list with its filters: archived, text, tag, stale, enabled, in key order and paged. */
function listFlags(
  db: SqlContext['db'],
  projectId: string,
  filter: Parameters<FlagStore['listFlags']>[1],
  page: PageRequest,
): ReturnType<FlagStore['listFlags']> {
  let query = db.selectFrom('flags').selectAll().where('project_id', '=', projectId);
  if (filter.archived !== undefined) query = query.where('archived', '=', filter.archived ? 1 : 0);
  if (filter.q) query = query.where(keyOrNameContains(filter.q));
  if (filter.tag) {
    // Tags are a JSON array of strings: match the quoted element exactly. Not LIKE, which
    // ignores case on SQLite; replace() is case-sensitive on both databases.
    const needle = JSON.stringify(filter.tag);
    query = query.where((eb) =>
      eb(eb.fn('replace', ['tags', eb.val(needle), eb.val('')]), '<>', eb.ref('tags')),
    );
  }
  if (filter.stale) query = query.where(staleIn(projectId, filter.stale));
  if (filter.enabled) query = query.where(enabledIn(projectId, filter.enabled));
  return paged(query, { column: 'key', direction: 'asc', of: (r) => r.key }, page, (rows) =>
    withEnvironments(db, rows),
  );
}

type FlagQueries = Omit<FlagStore, keyof SegmentStore>;
type FlagWrites = 'insertFlag' | 'updateFlag' | 'deleteFlag' | 'insertFlagEnvironments';

/** Flags and their per-environment configuration. */
export function flagQueries(context: SqlContext): FlagQueries {
  return { ...flagReads(context), ...flagWrites(context) };
}

/** The reads of flags: lists, by keys, by what names them, one by id or key (locked where asked). */
function flagReads(context: SqlContext): Omit<FlagQueries, FlagWrites> {
  const { db } = context;
  return {
    listFlags: (projectId, filter, page) => listFlags(db, projectId, filter, page),

    allFlags: (projectId) => projectFlags(db, projectId),

    async flagTags(projectId) {
      // Only the tags column: a project's tags are few, its flags may be ten thousand.
      const rows = await db.selectFrom('flags').select('tags').where('project_id', '=', projectId).execute();
      const tags = new Set(rows.flatMap((r) => JSON.parse(r.tags) as string[]));
      return [...tags].sort();
    },

    async flagsByKeys(projectId, keys) {
      const rows = await readByUnits(
        keys,
        (chunk) =>
          db
            .selectFrom('flags')
            .selectAll()
            .where('project_id', '=', projectId)
            .where('key', 'in', chunk)
            .execute(),
        asRead,
      );
      rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return withEnvironments(db, rows);
    },

    async flagsNaming(projectId, flagKey) {
      // A configuration naming the flag holds its key as a JSON string: a text match finds
      // those rows in the database (a superset on SQLite, whose LIKE ignores ASCII case).
      const pattern = `%${JSON.stringify(flagKey).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const rows = await db
        .selectFrom('flags')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('flag_environments')
            .select('flag_id')
            .where('config', 'like', sql<string>`${pattern} escape '\\'`),
        )
        .orderBy('key')
        .execute();
      return withEnvironments(db, rows);
    },

    async findFlagById(id, options) {
      const query = db.selectFrom('flags').selectAll().where('id', '=', id);
      const rows = await locked(context, query, options?.forUpdate ? 'update' : undefined).execute();
      return (await withEnvironments(db, rows))[0];
    },

    async findFlagByKey(projectId, key, options) {
      const query = db
        .selectFrom('flags')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('key', '=', key);
      const rows = await locked(context, query, options?.forUpdate ? 'update' : undefined).execute();
      return (await withEnvironments(db, rows))[0];
    },
  };
}

/** The writes of flags, each with its per-environment configuration in one transaction. */
function flagWrites(context: SqlContext): Pick<FlagQueries, FlagWrites> {
  const { atomically } = context;
  return {
    insertFlag: (flag) =>
      atomically(async ({ db }) => {
        await mapUnique(db.insertInto('flags').values(flagToRow(flag)).execute());
        await writeFlagEnvironments(db, flag);
      }),

    updateFlag(flag, expectedVersion) {
      return atomically(async ({ db }) => {
        if (!(await updateVersioned(db, 'flags', flag.id, flagToRow(flag), expectedVersion))) return false;
        await writeFlagEnvironments(db, flag);
        return true;
      });
    },

    deleteFlag: (id) =>
      atomically(async ({ db }) => {
        // Its scheduled changes go with it, as before they shared a table with change requests
        // (migration 0013); a change request outlives the flag it would change, to say so.
        await db
          .deleteFrom('pending_changes')
          .where('flag_id', '=', id)
          .where('kind', '=', 'schedule')
          .execute();
        return deleteById(db, 'flags', id);
      }),

    async insertFlagEnvironments(environmentId, configs) {
      const rows = [...configs].map(([flagId, config]) => ({
        flag_id: flagId,
        environment_id: environmentId,
        ...flagEnvironmentToColumns(config),
      }));
      await atomically(async ({ db }) => {
        for (let i = 0; i < rows.length; i += 200) {
          await db
            .insertInto('flag_environments')
            .values(rows.slice(i, i + 200))
            .execute();
        }
      });
    },
  };
}

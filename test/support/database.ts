import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe } from 'vitest';
import { migrateTo, migrateToLatest, openDatabase } from '../../src/storage/open-database.ts';
import type { Database } from '../../src/storage/sql/database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';
import type { Store } from '../../src/storage/store.ts';
import { runAdmin } from './postgres-admin.ts';

/** A migrated, empty database of its own, for one test. */
export interface OpenTestDatabase {
  readonly store: Store;
  readonly db: Kysely<Database>;
  /** Closes the connections and throws the database away. */
  close(): Promise<void>;
}

/** How far a test database is migrated: every migration, or up to and with `upTo` (migration tests). */
export interface MigrateOptions {
  readonly upTo?: string | undefined;
}

export interface TestDatabase {
  readonly name: 'sqlite' | 'postgres';
  open(options?: MigrateOptions): Promise<OpenTestDatabase>;
}

const migrate = (db: Kysely<Database>, options: MigrateOptions = {}) =>
  options.upTo === undefined ? migrateToLatest(db) : migrateTo(db, options.upTo);

const POSTGRES_URL_VARIABLE = 'FLAGSTAFF_TEST_DATABASE_URL';
export const POSTGRES_SKIPPED = `postgres (set ${POSTGRES_URL_VARIABLE} to run)`;

/** The test PostgreSQL server's URL, when the run has one. */
export const postgresUrl = (): string | undefined => process.env[POSTGRES_URL_VARIABLE] || undefined;

const sqlite: TestDatabase = {
  name: 'sqlite',
  async open(options) {
    const { db } = openDatabase('sqlite::memory:');
    await migrate(db, options);
    return { store: createSqlStore(db), db, close: () => db.destroy() };
  },
};

/** Prefix of this run's schemas; global-setup.ts sets it, and the last run to end drops them. */
export const schemaPrefix = () => `t_${process.env.FLAGSTAFF_TEST_RUN ?? 'adhoc'}_`;

/**
 * A fresh schema of this run. Schemas are dropped once no run is going on (global-setup.ts): dropping them
 * while other files migrate breaks Kysely's catalogue reads ("schema … does not exist").
 */
export async function createTestSchema(url: string): Promise<string> {
  const schema = `${schemaPrefix()}${randomBytes(6).toString('hex')}`;
  await runAdmin(url, `create schema ${schema}`);
  return schema;
}

function postgres(url: string): TestDatabase {
  return {
    name: 'postgres',
    async open(options) {
      // A schema per test keeps tests apart without creating databases; search_path points at it.
      const schema = await createTestSchema(url);
      const { db } = openDatabase(url, { schema });
      try {
        await migrate(db, options);
      } catch (error) {
        await db.destroy();
        throw error;
      }
      return { store: createSqlStore(db), db, close: () => db.destroy() };
    },
  };
}

/** The databases to test against: SQLite always, PostgreSQL when FLAGSTAFF_TEST_DATABASE_URL is set. */
export function testDatabases(): readonly TestDatabase[] {
  const url = postgresUrl();
  return url === undefined ? [sqlite] : [sqlite, postgres(url)];
}

/** Stands in for PostgreSQL in the skipped suite, so its tests are listed without running. */
const unconfiguredPostgres: TestDatabase = {
  name: 'postgres',
  open: () => Promise.reject(new Error(`${POSTGRES_URL_VARIABLE} is not set`)),
};

/**
 * Registers `fn`'s tests once per database under `title`. Without PostgreSQL, its copy is
 * registered as skipped under a name that says how to run it, so the gap shows in every run.
 */
export function describeEachDatabase(title: string, fn: (database: TestDatabase) => void): void {
  describe(title, () => {
    describe.each(testDatabases().map((database) => [database.name, database] as const))(
      '%s',
      (_, database) => fn(database),
    );
    if (postgresUrl() === undefined) describe.skip(POSTGRES_SKIPPED, () => fn(unconfiguredPostgres));
  });
}

/**
 * describeEachDatabase with a database of its own for every test: `opened()` is the one the running
 * test got, closed after it (for tests that write rows an earlier migration left, like migration
 * tests; `options.upTo` leaves it at an earlier schema).
 */
export function describeEachFreshDatabase(
  title: string,
  fn: (opened: () => OpenTestDatabase) => void,
  options: MigrateOptions = {},
): void {
  describeEachDatabase(title, (database) => {
    let opened: OpenTestDatabase | undefined;
    beforeEach(async () => {
      opened = await database.open(options);
    });
    afterEach(() => opened?.close());
    fn(() => opened as OpenTestDatabase);
  });
}

/**
 * The store of the test running: a migrated, empty one opened before each test of the enclosing
 * describe and closed after it. Every method call goes to the current test's store.
 */
export function storeOfEachTest(database: TestDatabase): Store {
  let current: Store | undefined;
  let close: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    const opened = await database.open();
    current = opened.store;
    close = opened.close;
  });

  afterEach(async () => {
    await close?.();
    close = undefined;
    current = undefined;
  });

  return new Proxy({} as Store, {
    get(_, property) {
      if (current === undefined) throw new Error('The store is open only while a test runs.');
      const value = Reflect.get(current, property);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import {
  type DatabaseConnection,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';
import { WalSync } from './wal-sync.ts';

/** node:sqlite as Kysely drives it, and a way to wait until what it wrote is on disk. */
export interface NodeSqliteDatabase extends SqliteDatabase {
  /** Resolves once every write so far is durable (at once for an in-memory database). */
  durable(): Promise<void>;
}

/**
 * Adapts Node's built-in `node:sqlite` to the better-sqlite3-shaped interface Kysely's
 * SqliteDialect drives, so the embedded database needs no native add-on.
 */
export function openNodeSqlite(path: string): NodeSqliteDatabase {
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  // WAL lets readers run beside the writer; foreign keys are off by default in SQLite.
  // synchronous = NORMAL: a commit does not fsync on the event loop; WalSync does, off it (decision 2060).
  database.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;',
  );
  const sync = inMemory ? undefined : new WalSync(path);
  // Kysely prepares every query anew; the same few hundred texts recur, so keep them prepared.
  const prepared = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare: (sql) => {
      let statement = prepared.get(sql);
      if (statement === undefined) {
        if (prepared.size >= STATEMENT_CACHE_SIZE) prepared.delete(prepared.keys().next().value as string);
        statement = adaptStatement(
          database.prepare(sql),
          sync !== undefined && mayWrite(sql) ? sync : undefined,
        );
        prepared.set(sql, statement);
      }
      return statement;
    },
    durable: () => sync?.durable() ?? Promise.resolve(),
  };
}

const STATEMENT_CACHE_SIZE = 500;

/** Reads (selects, pragmas: the change feed's `data_version` twenty times a second) need no fsync; anything else may write. */
const mayWrite = (sql: string): boolean => !/^\s*(select|pragma)\b/i.test(sql);

function adaptStatement(statement: StatementSync, sync: WalSync | undefined): SqliteStatement {
  const bind = (parameters: ReadonlyArray<unknown>) => parameters as SQLInputValue[];
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => {
      sync?.wrote();
      return statement.all(...bind(parameters));
    },
    run: (parameters) => {
      sync?.wrote();
      return statement.run(...bind(parameters));
    },
    iterate: (parameters) => statement.iterate(...bind(parameters)),
  };
}

/** The next turn of the event loop, after the I/O that is waiting (requests, replies). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Kysely's SQLite dialect over node:sqlite, whose connection, once released, waits until what
 * was written through it is durable: a write answers only then, and other queries need not wait
 * for the fsync (decision 2060). Each statement runs in a turn of the event loop of its own
 * (decision 2095): node:sqlite answers synchronously, so a write of 14 statements was one 4–5 ms
 * stretch that every evaluation arriving meanwhile waited behind; PostgreSQL's round trips give
 * way between statements, and now SQLite's do too.
 */
export class NodeSqliteDialect extends SqliteDialect {
  readonly #database: NodeSqliteDatabase;

  constructor(database: NodeSqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override createDriver(): SqliteDriver {
    const database = this.#database;
    return new (class extends SqliteDriver {
      override async acquireConnection(): Promise<DatabaseConnection> {
        const connection = await super.acquireConnection();
        return {
          executeQuery: async (query) => {
            await nextTurn();
            return connection.executeQuery(query);
          },
          streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
        };
      }

      override async releaseConnection(): Promise<void> {
        await super.releaseConnection();
        await database.durable();
      }
    })({ database });
  }
}

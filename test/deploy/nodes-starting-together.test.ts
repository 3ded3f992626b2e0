import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/storage/migrations/index.ts';
import { openDatabase } from '../../src/storage/open-database.ts';
import { type NodeProcess, startNodeProcess } from '../plane/node-process.ts';
import { createTestSchema, POSTGRES_SKIPPED } from '../support/database.ts';

const postgresUrl = process.env.FLAGSTAFF_TEST_DATABASE_URL || undefined;
const NODES = 5;

/** The database URL of a new, empty schema of its own. */
async function emptySchema(): Promise<{ url: string; schema: string }> {
  const schema = await createTestSchema(postgresUrl as string);
  const url = new URL(postgresUrl as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.href, schema };
}

describe.skipIf(postgresUrl === undefined)('nodes starting together on one PostgreSQL database', () => {
  let nodes: NodeProcess[] = [];
  afterEach(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    nodes = [];
  });

  /** Starts NODES at once; resolves once all listen, with what each printed. */
  async function startAll(url: string): Promise<string[]> {
    nodes = Array.from({ length: NODES }, () =>
      startNodeProcess({ FLAGSTAFF_DATABASE_URL: url, FLAGSTAFF_LOG_LEVEL: 'info' }),
    );
    const urls = await Promise.all(nodes.map((node) => node.listening));
    for (const base of urls) {
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
    }
    return nodes.map((node) => node.output());
  }

  const migratedBy = (outputs: string[]) =>
    outputs.flatMap((output) =>
      output
        .split('\n')
        .filter((line) => line.includes('"database schema migrated"'))
        .map((line) => JSON.parse(line).migrations as string[]),
    );

  async function countRows(url: string, table: string): Promise<number> {
    const { db } = openDatabase(url);
    try {
      const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
      return Number(rows[0]?.n);
    } finally {
      await db.destroy();
    }
  }

  it('migrate an empty schema once, create one first project and key, and all become ready', {
    timeout: 180_000,
  }, async () => {
    const { url } = await emptySchema();
    const outputs = await startAll(url);
    const all = Object.keys(await migrationProvider.getMigrations()).sort();
    expect(migratedBy(outputs)).toEqual([all]);
    // The admin key is generated and shown by exactly one node.
    expect(outputs.filter((output) => output.includes('It is shown this once')).length).toBe(1);
    expect(await countRows(url, 'projects')).toBe(1);
    expect(await countRows(url, 'api_keys')).toBe(1);
  });

  it('bring a schema one migration behind up to date once, and all become ready', {
    timeout: 180_000,
  }, async () => {
    const { url } = await emptySchema();
    const all = Object.keys(await migrationProvider.getMigrations()).sort();
    const { db } = openDatabase(url);
    try {
      const schema = new URL(url).searchParams.get('options')?.split('=')[1] as string;
      const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema });
      const { error } = await migrator.migrateTo(all.at(-2) as string);
      expect(error).toBeUndefined();
    } finally {
      await db.destroy();
    }
    const outputs = await startAll(url);
    expect(migratedBy(outputs)).toEqual([[all.at(-1)]]);
  });
});

describe.skipIf(postgresUrl !== undefined)(POSTGRES_SKIPPED, () => {
  it('nodes starting together migrate once', () => {});
});

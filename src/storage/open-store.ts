import { migrateToLatest, openDatabase } from './open-database.ts';
import { createSqlStore } from './sql/sql-store.ts';
import type { Store } from './store.ts';

/** Opens the database named by the URL, brings its schema up to date, and returns the store over it. */
export async function openStore(url: string): Promise<Store> {
  const { db } = openDatabase(url);
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return createSqlStore(db);
}

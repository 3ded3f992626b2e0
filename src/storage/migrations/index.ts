import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.ts';

/** Every migration, in order. Names sort in the order they run; never rename or edit a released one. */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};

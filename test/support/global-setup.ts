import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Gives this test run an id (its PostgreSQL schemas are named after it) and drops those
 * schemas when the run ends.
 */
export function setup(): () => Promise<void> {
  process.env.FLAGSTAFF_TEST_RUN = randomBytes(4).toString('hex');
  return async () => {
    const url = process.env.FLAGSTAFF_TEST_DATABASE_URL;
    if (!url) return;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        'select nspname as name from pg_namespace where nspname like $1',
        [`t\\_${process.env.FLAGSTAFF_TEST_RUN}\\_%`],
      );
      for (const { name } of rows) await client.query(`drop schema "${name}" cascade`);
    } finally {
      await client.end();
    }
  };
}

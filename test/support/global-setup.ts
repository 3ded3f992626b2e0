import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Held shared by every test run while it lasts; taken alone by the run that cleans up. */
const TEST_RUNS_LOCK = 0x66_6c_61_67;

/** Schemas made by test runs (`t_<run>_<random>`, database.ts) and by benchmarks (`t_adhoc_…`). */
const TEST_SCHEMA = '^t_([0-9a-f]{8}|adhoc)_[0-9a-f]{12}$';

/**
 * Gives this test run an id (its PostgreSQL schemas are named after it) and, when it ends,
 * drops the test schemas — only when no other run is going on. Dropping a schema while another
 * run migrates breaks Kysely's catalogue reads there ("schema … does not exist"), so the last
 * run out cleans up for every run before it: each run holds a shared advisory lock while it
 * lasts, and the one that can then take it alone knows nobody else is migrating.
 */
export async function setup(): Promise<() => Promise<void>> {
  process.env.FLAGSTAFF_TEST_RUN = randomBytes(4).toString('hex');
  const url = process.env.FLAGSTAFF_TEST_DATABASE_URL;
  if (!url) return async () => {};
  const presence = new pg.Client({ connectionString: url });
  await presence.connect();
  await presence.query('select pg_advisory_lock_shared($1)', [TEST_RUNS_LOCK]);
  return async () => {
    try {
      await presence.query('select pg_advisory_unlock_shared($1)', [TEST_RUNS_LOCK]);
      const { rows } = await presence.query<{ alone: boolean }>('select pg_try_advisory_lock($1) as alone', [
        TEST_RUNS_LOCK,
      ]);
      if (rows[0]?.alone !== true) return;
      const schemas = await presence.query<{ name: string }>(
        'select nspname as name from pg_namespace where nspname ~ $1',
        [TEST_SCHEMA],
      );
      for (const { name } of schemas.rows) await presence.query(`drop schema "${name}" cascade`);
    } finally {
      // Ending the session releases its advisory locks, should a drop fail.
      await presence.end();
    }
  };
}

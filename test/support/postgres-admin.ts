import pg from 'pg';

// Kept apart from database.ts, which registers Vitest suites: benchmarks run outside Vitest and
// create their schemas with this too.

/** Runs one statement on a short-lived connection of its own, outside any test schema. */
export async function runAdmin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

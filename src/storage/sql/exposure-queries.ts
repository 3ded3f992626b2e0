import { type Kysely, sql } from 'kysely';
import { type Exposure, exposureKey, mergeExposures } from '../../domain/exposure.ts';
import type { ExposureStore } from '../exposure-store.ts';
import { upsertInChunks } from './chunked.ts';
import type { Database, ExposuresTable } from './database.ts';

const rowOf = (e: Exposure): ExposuresTable => ({
  project_id: e.projectId,
  environment: e.environment,
  experiment: e.experiment,
  unit: e.unit,
  variant: e.variant,
  first_at: new Date(e.firstAt).toISOString(),
  multiple: e.multiple ? 1 : 0,
});

const exposureOf = (row: ExposuresTable): Exposure => ({
  projectId: row.project_id,
  environment: row.environment,
  experiment: row.experiment,
  unit: row.unit,
  variant: row.variant,
  firstAt: Date.parse(row.first_at),
  multiple: Number(row.multiple) === 1,
});

/** One exposure per unit and experiment: an upsert may not touch a row twice in one statement. */
function merged(exposures: readonly Exposure[]): Exposure[] {
  const byKey = new Map<string, Exposure>();
  for (const e of exposures) {
    const key = exposureKey(e);
    const earlier = byKey.get(key);
    byKey.set(key, earlier === undefined ? e : mergeExposures(earlier, e));
  }
  return [...byKey.values()];
}

/** The ExposureStore over Kysely: mergeExposures, said in SQL, as the upsert's update. */
export class ExposureQueries implements ExposureStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async recordExposures(exposures: readonly Exposure[]): Promise<void> {
    if (exposures.length === 0) return;
    const earlier = sql`excluded.first_at < exposures.first_at`;
    await this.#db.transaction().execute(async (trx) => {
      await upsertInChunks(trx, 'exposures', merged(exposures).map(rowOf), (oc) =>
        // Every expression reads the row as it was (both databases), so their order does not matter.
        oc.columns(['project_id', 'experiment', 'unit']).doUpdateSet({
          multiple: sql`case when exposures.multiple = 1 or excluded.multiple = 1 or exposures.variant <> excluded.variant then 1 else 0 end`,
          variant: sql`case when ${earlier} then excluded.variant else exposures.variant end`,
          first_at: sql`case when ${earlier} then excluded.first_at else exposures.first_at end`,
        }),
      );
    });
  }

  async listExposures(projectId: string, experiment: string): Promise<readonly Exposure[]> {
    const rows = await this.#db
      .selectFrom('exposures')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('experiment', '=', experiment)
      .orderBy('unit')
      .execute();
    return rows.map(exposureOf);
  }
}

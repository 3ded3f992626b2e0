import { type Kysely, sql } from 'kysely';
import type {
  EvaluationCount,
  FlagTotal,
  InsightsStore,
  SeriesQuery,
  SeriesRow,
  VariantUsage,
} from '../insights-store.ts';
import { upsertInChunks } from './chunked.ts';
import type { Database } from './database.ts';

/** '' stands for "no variant" in the tables, whose keys cannot hold null. */
const variantColumn = (variant: string | null) => variant ?? '';
const variantOf = (column: string) => (column === '' ? null : column);

/** Per flag, environment and variant: the first and last minute among `counts` (one row per key, as upserts need). */
function usageOf(counts: readonly EvaluationCount[]): Database['flag_variant_usage'][] {
  const usage = new Map<string, Database['flag_variant_usage']>();
  for (const c of counts) {
    const variant = variantColumn(c.variant);
    const key = JSON.stringify([c.projectId, c.environment, c.flagKey, variant]);
    const row = usage.get(key);
    if (row === undefined) {
      usage.set(key, {
        project_id: c.projectId,
        flag_key: c.flagKey,
        environment: c.environment,
        variant,
        first_minute: c.minute,
        last_minute: c.minute,
      });
    } else {
      row.first_minute = Math.min(row.first_minute, c.minute);
      row.last_minute = Math.max(row.last_minute, c.minute);
    }
  }
  return [...usage.values()];
}

/** The InsightsStore over Kysely: the same queries on SQLite and PostgreSQL. */
export class InsightsQueries implements InsightsStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async addEvaluationCounts(counts: readonly EvaluationCount[]): Promise<void> {
    if (counts.length === 0) return;
    await this.#db.transaction().execute(async (trx) => {
      await upsertInChunks(
        trx,
        'flag_evaluation_counts',
        counts.map((c) => ({
          project_id: c.projectId,
          flag_key: c.flagKey,
          environment: c.environment,
          minute: c.minute,
          variant: variantColumn(c.variant),
          reason: c.reason,
          count: c.count,
        })),
        (oc) =>
          oc
            .columns(['project_id', 'flag_key', 'environment', 'minute', 'variant', 'reason'])
            .doUpdateSet({ count: sql`flag_evaluation_counts.count + excluded.count` }),
      );
      await upsertInChunks(trx, 'flag_variant_usage', usageOf(counts), (oc) =>
        oc.columns(['project_id', 'environment', 'flag_key', 'variant']).doUpdateSet({
          // CASE rather than min/least: the one spelling both databases share.
          first_minute: sql`case when excluded.first_minute < flag_variant_usage.first_minute then excluded.first_minute else flag_variant_usage.first_minute end`,
          last_minute: sql`case when excluded.last_minute > flag_variant_usage.last_minute then excluded.last_minute else flag_variant_usage.last_minute end`,
        }),
      );
    });
  }

  async evaluationSeries(query: SeriesQuery): Promise<readonly SeriesRow[]> {
    // The step is a validated whole number, inlined so PostgreSQL sees one expression in SELECT and GROUP BY.
    const step = sql.lit(Math.trunc(query.stepMinutes));
    const bucket = sql<number>`(minute / ${step}) * ${step}`;
    const rows = await this.#db
      .selectFrom('flag_evaluation_counts')
      .select((eb) => [
        bucket.as('bucket'),
        'variant',
        'reason',
        eb.fn.sum<number | string>('count').as('total'),
      ])
      .where('project_id', '=', query.projectId)
      .where('flag_key', '=', query.flagKey)
      .where('environment', '=', query.environment)
      .where('minute', '>=', query.fromMinute)
      .where('minute', '<', query.toMinute)
      .groupBy([bucket, 'variant', 'reason'])
      .orderBy('bucket')
      .execute();
    return rows.map((r) => ({
      minute: Number(r.bucket),
      variant: variantOf(r.variant),
      reason: r.reason,
      count: Number(r.total),
    }));
  }

  async variantUsage(
    projectId: string,
    filter: { readonly flagKeys?: readonly string[]; readonly environment?: string },
  ): Promise<readonly VariantUsage[]> {
    if (filter.flagKeys?.length === 0) return [];
    let query = this.#db.selectFrom('flag_variant_usage').selectAll().where('project_id', '=', projectId);
    if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment);
    if (filter.flagKeys !== undefined) query = query.where('flag_key', 'in', filter.flagKeys);
    const rows = await query.execute();
    return rows.map((r) => ({
      flagKey: r.flag_key,
      environment: r.environment,
      variant: variantOf(r.variant),
      firstMinute: Number(r.first_minute),
      lastMinute: Number(r.last_minute),
    }));
  }

  async topFlags(
    projectId: string,
    environment: string,
    fromMinute: number,
    limit: number,
  ): Promise<readonly FlagTotal[]> {
    const rows = await this.#db
      .selectFrom('flag_evaluation_counts')
      .select((eb) => ['flag_key', eb.fn.sum<number | string>('count').as('total')])
      .where('project_id', '=', projectId)
      .where('environment', '=', environment)
      .where('minute', '>=', fromMinute)
      .groupBy('flag_key')
      .orderBy('total', 'desc')
      .orderBy('flag_key')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ flagKey: r.flag_key, count: Number(r.total) }));
  }

  async pruneEvaluationCounts(beforeMinute: number): Promise<void> {
    await this.#db.deleteFrom('flag_evaluation_counts').where('minute', '<', beforeMinute).execute();
  }
}

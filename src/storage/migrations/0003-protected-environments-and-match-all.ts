import type { Kysely, Migration } from 'kysely';
import { addColumns } from './schema.ts';

interface Tables {
  environments: { key: string; protected: number };
  flag_environments: { flag_id: string; environment_id: string; config: string };
}

interface StoredRule {
  segments?: unknown[];
  conditions?: unknown[];
  matchAll?: boolean;
}

/**
 * Environments get `protected` (decision 0604), true for the ones named production. Rules stored
 * with neither segments nor conditions served everyone; they now say so with `matchAll: true`
 * (decision 0603), so saving their flag again is not refused.
 */
export const protectedEnvironmentsAndMatchAll: Migration = {
  async up(untyped: Kysely<unknown>) {
    const db = untyped as Kysely<Tables>;
    await addColumns(untyped, 'environments', 'protected integer not null default 0');
    await db.updateTable('environments').set({ protected: 1 }).where('key', '=', 'production').execute();
    await markEveryoneRules(untyped);
  },
};

const servesEveryone = (rule: StoredRule) =>
  rule.matchAll !== true && (rule.segments ?? []).length === 0 && (rule.conditions ?? []).length === 0;

/** Adds `matchAll: true` to stored rules with neither segments nor conditions: they always served everyone. */
export async function markEveryoneRules(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>;
  const rows = await db
    .selectFrom('flag_environments')
    .select(['flag_id', 'environment_id', 'config'])
    .execute();
  for (const row of rows) {
    const config = JSON.parse(row.config) as { rules?: StoredRule[] };
    if (!config.rules?.some(servesEveryone)) continue;
    config.rules = config.rules.map((rule) => (servesEveryone(rule) ? { ...rule, matchAll: true } : rule));
    await db
      .updateTable('flag_environments')
      .set({ config: JSON.stringify(config) })
      .where('flag_id', '=', row.flag_id)
      .where('environment_id', '=', row.environment_id)
      .execute();
  }
}

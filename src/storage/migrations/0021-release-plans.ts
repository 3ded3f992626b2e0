import type { Kysely, Migration } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/**
 * Release templates and plans (SPEC §13, docs/releases.md). Each is one JSON document (`body`):
 * milestones, guards, readings and the timeline change together and are read whole. A flag has
 * at most one plan per environment; its steps are scheduled changes (pending_changes) that name
 * the plan, so this migration adds nothing there.
 */
export const releasePlans: Migration = {
  async up(db: Kysely<unknown>) {
    await createTable(
      db,
      'release_templates',
      `id text primary key, project_id text not null references projects.id cascade, key text not null,
      body text not null, version integer not null, created_at text not null, updated_at text not null`,
    ).execute();
    await createIndex(db, 'release_templates_project_key', 'release_templates', ['project_id', 'key'], {
      unique: true,
    });
    await createTable(
      db,
      'release_plans',
      `id text primary key, project_id text not null references projects.id cascade,
      flag_id text not null references flags.id cascade, environment text not null, status text not null,
      body text not null, version integer not null, created_at text not null, updated_at text not null`,
    ).execute();
    await createIndex(db, 'release_plans_flag_environment', 'release_plans', ['flag_id', 'environment'], {
      unique: true,
    });
    await createIndex(db, 'release_plans_status', 'release_plans', ['status']);
  },
};

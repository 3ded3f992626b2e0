import type { Kysely, Migration } from 'kysely';
import { createIndex, createTable } from './schema.ts';

/** Projects, environments, flags and their per-environment configuration, segments, API keys, audit log. */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    // Keys are `binary`: they sort byte-wise on both databases, so lists and cursors agree
    // whatever PostgreSQL's locale.
    const versioned = 'version integer not null, created_at text not null, updated_at text not null';
    await createTable(
      db,
      'projects',
      `id text primary key, key text binary not null unique, name text not null,
      description text not null, ${versioned}`,
    ).execute();

    await createTable(
      db,
      'project_revisions',
      'project_id text primary key references projects.id cascade, revision integer not null',
    ).execute();

    const ofProject = `id text primary key, project_id text not null references projects.id cascade,
      key text binary not null, name text not null, description text not null`;
    await createTable(db, 'environments', `${ofProject}, ${versioned}`)
      .addUniqueConstraint('environments_project_key', ['project_id', 'key'])
      .execute();

    await createTable(
      db,
      'flags',
      `${ofProject}, type text not null, variants text not null, tags text not null,
      archived integer not null, metadata text not null, ${versioned}`,
    )
      .addUniqueConstraint('flags_project_key', ['project_id', 'key'])
      .execute();

    await createTable(
      db,
      'flag_environments',
      `flag_id text not null references flags.id cascade,
      environment_id text not null references environments.id cascade, enabled integer not null, config text not null`,
    )
      .addPrimaryKeyConstraint('flag_environments_pk', ['flag_id', 'environment_id'])
      .execute();
    await createIndex(db, 'flag_environments_environment', 'flag_environments', ['environment_id']);

    await createTable(
      db,
      'segments',
      `${ofProject}, match text not null, rules text not null, included text not null,
      excluded text not null, ${versioned}`,
    )
      .addUniqueConstraint('segments_project_key', ['project_id', 'key'])
      .execute();

    await createTable(
      db,
      'api_keys',
      `id text primary key, name text not null, prefix text not null, secret_hash text not null unique,
      project_id text references projects.id cascade, role text not null, environments text,
      created_at text not null, expires_at text, last_used_at text, revoked_at text`,
    ).execute();

    await createTable(
      db,
      'audit_events',
      `id text primary key, project_id text, at text not null, actor text not null, action text not null,
      resource_type text not null, resource_id text not null, resource_key text, environment text,
      before text, after text, request_id text not null`,
    ).execute();
    await createIndex(db, 'audit_events_project', 'audit_events', ['project_id', 'id']);
  },
};

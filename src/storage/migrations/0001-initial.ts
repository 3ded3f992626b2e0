import { type ColumnDefinitionBuilder, type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

const text = 'text' as const;
const integer = 'integer' as const;

/** Projects, environments, flags and their per-environment configuration, segments, API keys, audit log. */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    // Keys sort byte-wise on both databases, so lists and cursors agree whatever PostgreSQL's locale.
    const binary =
      db.getExecutor().adapter instanceof PostgresAdapter
        ? (c: ColumnDefinitionBuilder) => c.modifyFront(sql`collate "C"`).notNull()
        : (c: ColumnDefinitionBuilder) => c.notNull();
    await db.schema
      .createTable('projects')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('key', text, (c) => binary(c).unique())
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('description', text, (c) => c.notNull())
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('project_revisions')
      .addColumn('project_id', text, (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
      .addColumn('revision', integer, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('environments')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('key', text, binary)
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('description', text, (c) => c.notNull())
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .addUniqueConstraint('environments_project_key', ['project_id', 'key'])
      .execute();

    await db.schema
      .createTable('flags')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('key', text, binary)
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('description', text, (c) => c.notNull())
      .addColumn('type', text, (c) => c.notNull())
      .addColumn('variants', text, (c) => c.notNull())
      .addColumn('tags', text, (c) => c.notNull())
      .addColumn('archived', integer, (c) => c.notNull())
      .addColumn('metadata', text, (c) => c.notNull())
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .addUniqueConstraint('flags_project_key', ['project_id', 'key'])
      .execute();

    await db.schema
      .createTable('flag_environments')
      .addColumn('flag_id', text, (c) => c.notNull().references('flags.id').onDelete('cascade'))
      .addColumn('environment_id', text, (c) => c.notNull().references('environments.id').onDelete('cascade'))
      .addColumn('enabled', integer, (c) => c.notNull())
      .addColumn('config', text, (c) => c.notNull())
      .addPrimaryKeyConstraint('flag_environments_pk', ['flag_id', 'environment_id'])
      .execute();
    await db.schema
      .createIndex('flag_environments_environment')
      .on('flag_environments')
      .column('environment_id')
      .execute();

    await db.schema
      .createTable('segments')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text, (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('key', text, binary)
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('description', text, (c) => c.notNull())
      .addColumn('match', text, (c) => c.notNull())
      .addColumn('rules', text, (c) => c.notNull())
      .addColumn('included', text, (c) => c.notNull())
      .addColumn('excluded', text, (c) => c.notNull())
      .addColumn('version', integer, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .addUniqueConstraint('segments_project_key', ['project_id', 'key'])
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('name', text, (c) => c.notNull())
      .addColumn('prefix', text, (c) => c.notNull())
      .addColumn('secret_hash', text, (c) => c.notNull().unique())
      .addColumn('project_id', text, (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('role', text, (c) => c.notNull())
      .addColumn('environments', text)
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('expires_at', text)
      .addColumn('last_used_at', text)
      .addColumn('revoked_at', text)
      .execute();

    await db.schema
      .createTable('audit_events')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('project_id', text)
      .addColumn('at', text, (c) => c.notNull())
      .addColumn('actor', text, (c) => c.notNull())
      .addColumn('action', text, (c) => c.notNull())
      .addColumn('resource_type', text, (c) => c.notNull())
      .addColumn('resource_id', text, (c) => c.notNull())
      .addColumn('resource_key', text)
      .addColumn('environment', text)
      .addColumn('before', text)
      .addColumn('after', text)
      .addColumn('request_id', text, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('audit_events_project')
      .on('audit_events')
      .columns(['project_id', 'id'])
      .execute();
  },
};

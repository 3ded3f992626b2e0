import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { RateLimitOptions } from '../../src/access/budgets.ts';
import type { TrustProxy } from '../../src/config.ts';
import type { Role } from '../../src/domain/api-key.ts';
import type { Node as ComposedNode } from '../../src/main.ts';
import type { SnapshotRegistry } from '../../src/plane/snapshots.ts';
import type { CreatedApiKey } from '../../src/services/access/api-key-service.ts';
import type { Actor } from '../../src/services/core/actor.ts';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import type { Services } from '../../src/services/services.ts';
import { openChangeFeed } from '../../src/storage/change-feed/open-change-feed.ts';
import { migrateToLatest, openDatabase } from '../../src/storage/open-database.ts';
import type { Database } from '../../src/storage/sql/database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';
import type { Store } from '../../src/storage/store.ts';
import { buildTestApp, type TestAppOptions } from '../support/app.ts';
import { createTestSchema, type TestDatabase } from '../support/database.ts';
import { ADMIN_KEY } from '../support/server.ts';

export { ADMIN_KEY };

/** A clock the test moves by hand; starts at the real time so stored timestamps stay plausible. */
export class FakeClock {
  now = Date.now();
  readonly read = () => this.now;
  advance(ms: number): void {
    this.now += ms;
  }
}

export interface Call {
  /** The API key's secret; null: no Authorization header. Default: the admin key. */
  readonly key?: string | null;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The client address (inject's remoteAddress); default 127.0.0.1. */
  readonly from?: string;
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
  readonly body: any;
  readonly text: string;
}

export interface Node {
  readonly app: FastifyInstance;
  readonly services: Services;
  /** The node behind the app: its plane (`node.plane.sync` makes it catch up now) and admission. */
  readonly node: ComposedNode;
  /** The node's evaluation snapshots, for tests that make it catch up with other nodes now. */
  readonly snapshots: SnapshotRegistry;
  call(method: string, url: string, call?: Call): Promise<Reply>;
}

/** Every limit off unless a test sets one, so only the access rules decide. */
export const NO_RATE_LIMITS: RateLimitOptions = { evaluation: 0, management: 0 };

export interface NodeOptions {
  readonly rateLimits?: RateLimitOptions;
  readonly clock?: FakeClock;
  readonly logger?: FastifyServerOptions['logger'];
  readonly accessControl?: Omit<NonNullable<TestAppOptions['accessControl']>, 'rateLimits' | 'clock'>;
  /** FLAGSTAFF_TRUST_PROXY. */
  readonly trustProxy?: TrustProxy;
  /** Follow this database's change feed, as a deployed node does (hears other nodes' writes). */
  readonly feedFrom?: Kysely<Database>;
}

/** One app over `store`, as one node of a deployment would be (several may share a database). */
export async function startNode(store: Store, options: NodeOptions = {}): Promise<Node> {
  const clock = options.clock?.read;
  // The snapshots stamp changes with the node's clock too, so streams compare times of one clock.
  const { app, node } = await buildTestApp(store, {
    node: clock ? { clock } : {},
    logger: options.logger ?? false,
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    accessControl: {
      ...options.accessControl,
      rateLimits: options.rateLimits ?? NO_RATE_LIMITS,
      ...(clock ? { clock } : {}),
    },
  });
  const { services, plane } = node;
  app.addHook('onClose', () => plane.sync.close());
  await app.ready();
  if (options.feedFrom !== undefined) await plane.sync.start(openChangeFeed(options.feedFrom), QUIET_LOG);
  return {
    app,
    services,
    node,
    snapshots: plane.snapshots,
    async call(method, url, { key = ADMIN_KEY, body, headers = {}, from = '127.0.0.1' } = {}) {
      const response = await app.inject({
        method: method as 'GET',
        url,
        remoteAddress: from,
        headers: {
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          ...(body === undefined || typeof body === 'string' ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      let parsed: unknown;
      try {
        parsed = response.body === '' ? undefined : JSON.parse(response.body);
      } catch {
        parsed = response.body;
      }
      return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body };
    },
  };
}

export interface Harness extends Node {
  readonly store: Store;
  close(): Promise<void>;
}

/** A fresh database, bootstrapped with ADMIN_KEY (project `default`), and one node over it. */
export async function startHarness(database: TestDatabase, options: NodeOptions = {}): Promise<Harness> {
  const opened = await database.open();
  await bootstrap(opened.store, ADMIN_KEY);
  const node = await startNode(opened.store, options);
  return {
    ...node,
    store: opened.store,
    async close() {
      await node.app.close();
      await opened.close();
    },
  };
}

/** The operator's full rights, for setting up what a test needs without going through HTTP. */
export const setupActor: Actor = {
  principal: {
    type: 'user',
    // The command line's operator: a person with no account, whose pending changes still run.
    id: 'cli',
    name: 'Test setup',
    role: 'admin',
    projectId: null,
    environments: null,
  },
  requestId: 'test-setup',
};

/** Creates a key directly through the service; returns its secret and its public fields. */
export function createKey(
  services: Services,
  projectId: string | null,
  role: Role,
  environments: readonly string[] | null = null,
  extra: { expiresAt?: string; name?: string } = {},
): Promise<CreatedApiKey> {
  return services.apiKeys.create(setupActor, projectId, {
    name: extra.name ?? `${role} ${projectId ?? 'org'} ${environments?.join('+') ?? 'all'}`,
    role,
    environments,
    ...(extra.expiresAt ? { expiresAt: extra.expiresAt } : {}),
  });
}

const QUIET_LOG = { info: () => {}, warn: () => {} };

/** Two stores (as two nodes would open) over one database: a SQLite file, or one PostgreSQL schema. */
export async function openSharedDatabase(name: 'sqlite' | 'postgres'): Promise<{
  readonly stores: readonly [Store, Store];
  readonly dbs: readonly [Kysely<Database>, Kysely<Database>];
  close(): Promise<void>;
}> {
  // SQLite: a file in a folder of its own, removed on close; PostgreSQL: a schema of this run.
  const dir = name === 'sqlite' ? mkdtempSync(join(tmpdir(), 'flagstaff-nodes-')) : undefined;
  const open =
    dir !== undefined
      ? () => openDatabase(`sqlite:${join(dir, 'flagstaff.db')}`).db
      : await postgresSchemaOpener(process.env.FLAGSTAFF_TEST_DATABASE_URL as string);
  const first = open();
  await migrateToLatest(first);
  const second = open();
  return {
    stores: [createSqlStore(first), createSqlStore(second)],
    dbs: [first, second],
    async close() {
      await first.destroy();
      await second.destroy();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresSchemaOpener(url: string): Promise<() => Kysely<Database>> {
  const schema = await createTestSchema(url);
  return () => openDatabase(url, { schema }).db;
}

import { afterAll, beforeAll, describe } from 'vitest';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { migrateToLatest, openDatabase } from '../../src/storage/open-database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';
import { type Node, startNode } from '../access/support.ts';
import { createTestSchema, POSTGRES_SKIPPED, postgresUrl } from './database.ts';
import { ADMIN_KEY } from './server.ts';
import { proxyInFrontOf, type TcpProxy, throughProxy } from './tcp-proxy.ts';

type Database = ReturnType<typeof openDatabase>['db'];

/** How a node reaches the database: through the proxy the test cuts, or past it (spared by the outage). */
type Route = 'proxied' | 'direct';

export interface PostgresBehindProxy {
  /** Cut, hang and restore it to play an outage (docs/product.md §8). */
  readonly proxy: TcpProxy;
  /** A node on the schema, its store and change feed on one connection of `route`. */
  startNode(route: Route): Promise<Node>;
  /** Closes every node it started, their connections, then the proxy. */
  close(): Promise<void>;
}

/**
 * A fresh schema on the test PostgreSQL at `url`, migrated and bootstrapped with ADMIN_KEY, and a
 * TCP proxy in front of the server: what the outage suites run their nodes on.
 */
export async function postgresBehindProxy(url: string): Promise<PostgresBehindProxy> {
  const proxy = await proxyInFrontOf(url, 5432);
  const schema = await createTestSchema(url);
  const opened: Database[] = [];
  const nodes: Node[] = [];
  const open = (route: Route) => {
    const { db } = openDatabase(route === 'proxied' ? throughProxy(url, proxy) : url, { schema });
    opened.push(db);
    return db;
  };
  const setup = open('direct');
  await migrateToLatest(setup);
  await bootstrap(createSqlStore(setup), ADMIN_KEY);
  return {
    proxy,
    async startNode(route) {
      const db = open(route);
      const node = await startNode(createSqlStore(db), { feedFrom: db });
      nodes.push(node);
      return node;
    },
    async close() {
      for (const node of nodes) await node.app.close();
      for (const db of opened) await db.destroy();
      await proxy.close();
    },
  };
}

/** The two nodes of an outage suite and the proxy between them and the database. */
export interface OutageNodes {
  readonly proxy: TcpProxy;
  readonly a: Node;
  readonly b: Node;
}

/**
 * Registers an outage suite: `fn` declares its tests around nodes A and B on a fresh schema of
 * the test PostgreSQL, each reaching it as `routes` says. The nodes start before the suite's own
 * setup and close after its own teardown; `nodes()` gives them to hooks and tests. Without
 * PostgreSQL the suite is listed as skipped, under a name that says how to run it.
 */
export function describeOutage(
  title: string,
  routes: { readonly a: Route; readonly b: Route },
  fn: (nodes: () => OutageNodes) => void,
): void {
  const url = postgresUrl();
  if (url === undefined) {
    describe.skip(`${title}: ${POSTGRES_SKIPPED}`, () =>
      fn(() => {
        throw new Error(POSTGRES_SKIPPED);
      }));
    return;
  }
  describe(title, () => {
    let database: PostgresBehindProxy | undefined;
    let nodes: OutageNodes | undefined;
    beforeAll(async () => {
      database = await postgresBehindProxy(url);
      nodes = {
        proxy: database.proxy,
        a: await database.startNode(routes.a),
        b: await database.startNode(routes.b),
      };
    });
    afterAll(() => database?.close());
    fn(() => nodes as OutageNodes);
  });
}

import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { migrateToLatest, openDatabase } from '../../src/storage/open-database.ts';
import { createSqlStore } from '../../src/storage/sql/sql-store.ts';
import { createTestSchema } from './database.ts';
import { ADMIN_KEY } from './server.ts';
import { proxyInFrontOf, type TcpProxy, throughProxy } from './tcp-proxy.ts';

type Database = ReturnType<typeof openDatabase>['db'];

export interface PostgresBehindProxy {
  /** Cut, hang and restore it to play an outage (docs/product.md §8). */
  readonly proxy: TcpProxy;
  /** A connection to the schema through the proxy, or past it (as a node the outage spares). */
  open(route: 'proxied' | 'direct'): Database;
  /** Ends every connection `open` made, then the proxy. */
  close(): Promise<void>;
}

/**
 * A fresh schema on the test PostgreSQL at `url`, migrated and bootstrapped with ADMIN_KEY, and a
 * TCP proxy in front of the server: what the outage suites start their nodes on.
 */
export async function postgresBehindProxy(url: string): Promise<PostgresBehindProxy> {
  const proxy = await proxyInFrontOf(url, 5432);
  const schema = await createTestSchema(url);
  const opened: Database[] = [];
  const open = (route: 'proxied' | 'direct') => {
    const { db } = openDatabase(route === 'proxied' ? throughProxy(url, proxy) : url, { schema });
    opened.push(db);
    return db;
  };
  const setup = open('direct');
  await migrateToLatest(setup);
  await bootstrap(createSqlStore(setup), ADMIN_KEY);
  return {
    proxy,
    open,
    async close() {
      for (const db of opened) await db.destroy();
      await proxy.close();
    },
  };
}

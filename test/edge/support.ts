import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import type { Store } from '../../src/storage/store.ts';
import { ADMIN_KEY, type Node, openSharedDatabase, startNode } from '../access/support.ts';

/** The flag the edge tests follow, evaluated over OFREP. */
export const OFREP = '/ofrep/v1/evaluate/flags/banner';

/** One OFREP evaluation of `banner` at `origin` with `key`: its status and value. */
export async function evaluate(origin: string, key: string): Promise<{ status: number; value?: unknown }> {
  const response = await fetch(`${origin}${OFREP}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{"context":{"targetingKey":"user-1"}}',
  });
  const body = (await response.json()) as { value?: unknown };
  return { status: response.status, value: body.value };
}

/** Polls `check` until it holds or `deadlineMs` passes; resolves with the ms it took, or throws. */
export async function until(
  check: () => Promise<boolean>,
  deadlineMs: number,
  what: string,
): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < deadlineMs) {
    if (await check()) return performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`${what}: not within ${deadlineMs} ms`);
}

export const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Sends events to `origin`'s `POST /v1/events`; throws unless they are taken. */
export async function sendEvents(origin: string, key: string, events: readonly object[]): Promise<void> {
  const sent = await fetch(`${origin}/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  if (sent.status !== 200) throw new Error(`events refused: ${sent.status} ${await sent.text()}`);
}

/** The units of the stored events named `name` in production, sorted: one per event stored. */
export async function storedUnits(store: Store, projectId: string, name: string): Promise<string[]> {
  const events = await store.events.listEvents({ projectId, environment: 'production', name, limit: 100 });
  return events.map((event) => event.unit).sort();
}

/** Evaluations of `banner` in production counted in the core's insights over the last hour. */
export async function evaluationsCounted(store: Store, projectId: string): Promise<number> {
  const minute = Math.floor(Date.now() / 60_000);
  const rows = await store.insights.evaluationSeries({
    projectId,
    flagKey: 'banner',
    environment: 'production',
    fromMinute: minute - 60,
    toMinute: minute + 1,
    stepMinutes: 61,
  });
  return rows.reduce((sum, row) => sum + row.count, 0);
}

/**
 * The core the edges follow: a node over a database that two stores share (PostgreSQL when
 * FLAGSTAFF_TEST_DATABASE_URL is set, else SQLite), so it can be stopped and another node
 * started over the same data, at the same address, following the database's change feed.
 */
export class Core {
  readonly store: Store;
  readonly #shared: SharedDatabase;
  #port = 0;
  #url = '';
  #node: Node | undefined;

  private constructor(shared: SharedDatabase) {
    this.#shared = shared;
    this.store = shared.stores[0];
  }

  static async open(database: 'sqlite' | 'postgres'): Promise<Core> {
    const core = new Core(await openSharedDatabase(database));
    await bootstrap(core.store, ADMIN_KEY);
    return core;
  }

  /** The running node; throws while it is stopped. */
  get node(): Node {
    if (this.#node === undefined) throw new Error('the core is stopped');
    return this.#node;
  }

  get url(): string {
    return this.#url;
  }

  /** Starts a node over the first store (or the second: as a node restarted elsewhere would). */
  async start(which: 0 | 1 = 0): Promise<Node> {
    const node = await startNode(this.#shared.stores[which], { feedFrom: this.#shared.dbs[which] });
    const address = await node.app.listen({ port: this.#port, host: '127.0.0.1' });
    this.#port = Number(new URL(address).port);
    this.#url = new URL(address).origin;
    this.#node = node;
    return node;
  }

  /** As the node's graceful shutdown does: connections kept alive by the edges are not waited for. */
  async stop(): Promise<void> {
    const node = this.#node;
    this.#node = undefined;
    const closed = node?.app.close();
    node?.app.server.closeAllConnections();
    await closed;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.#shared.close();
  }
}

type SharedDatabase = Awaited<ReturnType<typeof openSharedDatabase>>;

import { buildApp } from '../src/http/build-app.ts';
import { composeNode, servedBy } from '../src/main.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import { buildFlag, inEnvironments } from '../test/support/builders.ts';
import { isMain, report } from './child.ts';
import { type BenchDatabase, benchDatabases } from './databases.ts';
import { median, ms, type Row } from './stats.ts';

// The flag list at 10,000 flags (docs/decisions/1800–1802): one page through the whole route
// (access, store, count, usage, JSON), against the same page of a project of 100 flags. Each
// filter the dashboard puts in the URL is measured too: the store answers them all in its query,
// so a page should cost about the same in a big project as in a small one. SQLite always;
// PostgreSQL when FLAGSTAFF_BENCH_DATABASE_URL (or FLAGSTAFF_TEST_DATABASE_URL) names one.

const SIZES = [100, 10_000] as const;
const ENVIRONMENTS = ['development', 'staging', 'production'];
const ROUNDS = 30;
const KEY = 'fsk_bench-lists-0123456789abcdefghijklmnopq';
const LONG_AGO = '2025-01-01T00:00:00.000Z';

/** The pages measured: what the dashboard asks for, first page and filtered. */
const QUERIES: readonly [name: string, query: string][] = [
  ['first page', ''],
  ['search', '&q=flag-000'],
  ['tag', '&tag=checkout'],
  ['stale', '&stale=true'],
];

/** Median milliseconds of each query's page, in a project of `size` flags over a fresh database. */
async function pageTimes(open: () => Promise<BenchDatabase>, size: number): Promise<number[]> {
  const database = await open();
  const store = createSqlStore(database.db);
  const node = composeNode(store, { admission: { rateLimits: { evaluation: 0, management: 0 } } });
  const { services } = node;
  const app = await buildApp(servedBy(node));
  try {
    await bootstrap(store, KEY);
    const project = await services.projects.create(
      {
        principal: {
          type: 'api_key',
          id: 'bench',
          name: 'bench',
          role: 'admin',
          projectId: null,
          environments: null,
        },
        requestId: 'bench',
      },
      { key: 'bench', environments: ENVIRONMENTS.map((key) => ({ key })) },
    );
    await store.transaction(async (tx) => {
      for (let i = 0; i < size; i++) {
        await tx.insertFlag(
          buildFlag(`flag-${String(i).padStart(5, '0')}`, {
            id: `flg_bench_${i}`,
            projectId: project.id,
            tags: i % 7 === 0 ? ['checkout'] : [],
            createdAt: i % 2 === 0 ? LONG_AGO : new Date().toISOString(),
            environments: inEnvironments(ENVIRONMENTS),
          }),
        );
      }
    });
    const get = async (query: string) => {
      const started = performance.now();
      const res = await app.inject({
        method: 'GET',
        url: `/v1/projects/bench/flags?limit=100&environment=production${query}`,
        headers: { authorization: `Bearer ${KEY}` },
      });
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
      return performance.now() - started;
    };
    const medians: number[] = [];
    for (const [, query] of QUERIES) {
      for (let i = 0; i < 5; i++) await get(query); // warm-up, untimed
      const times: number[] = [];
      for (let i = 0; i < ROUNDS; i++) times.push(await get(query));
      medians.push(median(times));
    }
    return medians;
  } finally {
    await app.close();
    await database.close();
  }
}

async function rows(): Promise<Row[]> {
  const result: Row[] = [];
  for (const [name, open] of benchDatabases('lists')) {
    const small = await pageTimes(open, SIZES[0]);
    const large = await pageTimes(open, SIZES[1]);
    QUERIES.forEach(([query], i) => {
      const [base, big] = [small[i] as number, large[i] as number];
      result.push({
        section: 'lists',
        figure: `${name}: GET …/flags ${query}, 100 a page, ${SIZES[1].toLocaleString('en')} flags (baseline ${SIZES[0]})`,
        value: ms(big),
        baseline: ms(base),
        ratio: base / big,
        target: i === 0 ? '< 100 ms' : '',
        ...(i === 0 ? { met: big < 100 } : {}),
      });
    });
  }
  return result;
}

if (isMain(import.meta.url)) report(await rows());

import type { Flag } from '../src/domain/flag.ts';
import { composeNode } from '../src/main.ts';
import { bootstrap } from '../src/services/projects/bootstrap.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import type { Store } from '../src/storage/store.ts';
import { buildFlag, inEnvironments } from '../test/support/builders.ts';
import { benchPostgresUrl, isMain, report } from './child.ts';
import { type BenchDatabase, openBenchPostgres, openBenchSqlite } from './databases.ts';
import { type Row, si } from './stats.ts';

// Write throughput against project size (decision 1600): flag patches per second through the
// use case, with this node's snapshot loaded (so the snapshot patch is paid too), in a project of
// 100 flags (the baseline) and of 5,000. Each write should cost O(the changed flag): the ratio
// says how much a big project slows a write down. SQLite always; PostgreSQL when
// FLAGSTAFF_BENCH_DATABASE_URL (or FLAGSTAFF_TEST_DATABASE_URL) names one.

const SIZES = [100, 5_000] as const;
const SECONDS = 3;
const WARM_UP = 100;
const ENVIRONMENTS = ['development', 'staging', 'production'];

interface Opened {
  readonly store: Store;
  close(): Promise<void>;
}

const withStore = ({ db, close }: BenchDatabase): Opened => ({ store: createSqlStore(db), close });
const openSqlite = async () => withStore(await openBenchSqlite('writes'));
const openPostgres = async (url: string) => withStore(await openBenchPostgres(url, 'writes'));

const aFlag = (projectId: string, key: string): Flag => {
  const at = new Date().toISOString();
  return buildFlag(key, {
    id: `flg_bench_${key}`,
    projectId,
    createdAt: at,
    updatedAt: at,
    environments: inEnvironments(ENVIRONMENTS),
  });
};

interface Throughput {
  readonly perSecond: number;
  /** This process's CPU time per write (µs): steadier than the rate, which waits on fsync and on a shared machine. */
  readonly cpuMicros: number;
}

/** Patches per second on one project of `size` flags, over a fresh database. */
async function writesPerSecond(open: () => Promise<Opened> | Opened, size: number): Promise<Throughput> {
  const { store, close } = await open();
  try {
    await bootstrap(store, undefined);
    const { services } = composeNode(store);
    const setup = {
      principal: {
        type: 'api_key' as const,
        id: 'bench',
        name: 'bench',
        role: 'admin' as const,
        projectId: null,
        environments: null,
      },
      requestId: 'bench',
    };
    const project = await services.projects.create(setup, {
      key: 'bench',
      environments: ENVIRONMENTS.map((key) => ({ key })),
    });
    const flags = Array.from({ length: size }, (_, i) =>
      aFlag(project.id, `flag-${String(i).padStart(5, '0')}`),
    );
    await store.transaction(async (tx) => {
      for (const flag of flags) await tx.insertFlag(flag);
    });
    // As a request through the route would: the access check resolved the project once.
    const actor = { ...setup, grant: { projectId: project.id } };
    await services.evaluation.evaluate(actor, 'flag-00000', {}, { environment: 'production' });
    const patch = (i: number) =>
      services.flags.patch(
        actor,
        (flags[i % flags.length] as Flag).id,
        { enabled: i % 2 === 0 },
        { environment: 'production' },
      );
    // Untimed, so that neither size pays for the JIT's first look at the write path.
    for (let i = 0; i < WARM_UP; i++) await patch(i);
    let writes = 0;
    const cpuAtStart = process.cpuUsage();
    const until = performance.now() + SECONDS * 1000;
    while (performance.now() < until) {
      await patch(WARM_UP + writes);
      writes++;
    }
    const cpu = process.cpuUsage(cpuAtStart);
    return { perSecond: writes / SECONDS, cpuMicros: (cpu.user + cpu.system) / writes };
  } finally {
    await close();
  }
}

async function rows(): Promise<Row[]> {
  const databases: [string, () => Promise<Opened> | Opened][] = [['SQLite', openSqlite]];
  const url = benchPostgresUrl();
  if (url) databases.push(['PostgreSQL', () => openPostgres(url)]);
  const result: Row[] = [];
  for (const [name, open] of databases) {
    const [small, large] = [await writesPerSecond(open, SIZES[0]), await writesPerSecond(open, SIZES[1])];
    result.push(
      {
        section: 'writes',
        figure: `${name}: flag patches/s, ${SIZES[1]} flags (baseline ${SIZES[0]} flags)`,
        value: `${si(large.perSecond)}/s`,
        baseline: `${si(small.perSecond)}/s`,
        ratio: large.perSecond / small.perSecond,
        target: '≥ 0.8',
        met: large.perSecond / small.perSecond >= 0.8,
      },
      {
        section: 'writes',
        figure: `${name}: CPU per patch, ${SIZES[1]} flags (baseline ${SIZES[0]} flags)`,
        value: `${large.cpuMicros.toFixed(0)} µs`,
        baseline: `${small.cpuMicros.toFixed(0)} µs`,
        ratio: small.cpuMicros / large.cpuMicros,
        target: '',
        note: 'ratio: baseline ÷ figure, so 1 means a write costs the same in both projects',
      },
    );
  }
  return result;
}

if (isMain(import.meta.url)) report(await rows());

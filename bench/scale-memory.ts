import type { Flag } from '../src/domain/flag.ts';
import { compileProject, withFlag } from '../src/evaluation/compile-environment.ts';
import { exportFlagd, FlagdDocumentTexts } from '../src/flagd/export-flagd.ts';
import { openDatabase } from '../src/storage/open-database.ts';
import { createSqlStore } from '../src/storage/sql/sql-store.ts';
import { isMain, sendResult } from './child.ts';
import { median } from './stats.ts';

// Memory per part of a node's evaluation state (docs/performance.md, "Memory per part"): reads
// the project a scale benchmark database holds (`--database=sqlite:…`), as a node does at start,
// and measures the V8 heap each part adds after a forced GC: the stored flags (kept for flagd
// export and sync), the compiled environments, and a bulk evaluation's result texts; and the
// snapshot work of one change (a flag written into every compiled environment, as
// SnapshotRegistry does). Run with --expose-gc, in a process of its own.

export interface PartMemory {
  readonly flags: number;
  readonly environments: number;
  /** Heap bytes each part holds. */
  readonly stored: number;
  readonly compiled: number;
  readonly evaluated: number;
  /** Median ms of patching one written flag into every environment (`withFlag`). */
  readonly patchMs: number;
  /** Median ms of the flagd document's text of one environment: exported and stringified whole, and after one change from the kept texts (decision 2094). */
  readonly flagdWholeMs: number;
  readonly flagdChangeMs: number;
}

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export async function memoryPerPart(databaseUrl: string): Promise<PartMemory> {
  const { db } = openDatabase(databaseUrl);
  const store = createSqlStore(db);
  try {
    const [projectId] = [...(await store.listRevisions()).keys()];
    if (projectId === undefined) throw new Error(`no project in ${databaseUrl}`);
    const empty = heapUsed();
    const { flags, segments, environments } = await store.readProject(projectId);
    const withSources = heapUsed();
    const compiled = compileProject(
      environments.map((e) => e.key),
      flags,
      segments,
    );
    const withCompiled = heapUsed();
    // What serving each flag once leaves behind: the results and their JSON texts, made once.
    for (const environment of compiled.values()) {
      environment.evaluateAll({ targetingKey: 'user-1', plan: 'pro' }, Math.floor(Date.now() / 1000));
    }
    const withEvaluated = heapUsed();
    const patches: number[] = [];
    // Each change patches the newest snapshots, as the registry does (an older one would be copied).
    let current = [...compiled.values()];
    for (let i = 0; i < 60; i++) {
      const source = flags[(i * 7919) % flags.length] as Flag;
      const written: Flag = { ...source, version: source.version + 1, description: `change ${i}` };
      const began = performance.now();
      current = current.map((environment) => withFlag(environment, written));
      patches.push(performance.now() - began);
    }
    const flagd = flagdDocumentCost(flags, segments, environments[0]?.key ?? 'production');
    return {
      ...flagd,
      flags: flags.length,
      environments: environments.length,
      stored: withSources - empty,
      compiled: withCompiled - withSources,
      evaluated: withEvaluated - withCompiled,
      patchMs: median(patches),
    };
  } finally {
    await db.destroy();
  }
}

/** What flagd sync sends at a change: the whole export, against the kept texts with one flag written. */
function flagdDocumentCost(
  flags: readonly Flag[],
  segments: Parameters<typeof exportFlagd>[2],
  environment: string,
): { flagdWholeMs: number; flagdChangeMs: number } {
  const whole: number[] = [];
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    JSON.stringify(exportFlagd(environment, flags, segments).document);
    whole.push(performance.now() - began);
  }
  const texts = new FlagdDocumentTexts();
  let current = [...flags];
  texts.document(environment, current, segments);
  const changes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const at = (i * 7919) % current.length;
    const source = current[at] as Flag;
    current = current.with(at, { ...source, version: source.version + 1, description: `change ${i}` });
    const began = performance.now();
    texts.document(environment, current, segments);
    changes.push(performance.now() - began);
  }
  return { flagdWholeMs: median(whole), flagdChangeMs: median(changes) };
}

if (isMain(import.meta.url)) {
  const database = process.argv.find((a) => a.startsWith('--database='))?.slice(11);
  if (database === undefined) throw new Error('--database=sqlite:PATH');
  sendResult(await memoryPerPart(database));
}

import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fileCycles,
  importGraph,
  PARTS,
  partCycles,
  partOf,
  readSources,
  SERVICE_FOLDERS,
  serviceFolderViolations,
  violations,
} from './import-graph.ts';

const SRC = join(import.meta.dirname, '../../src');
const DASHBOARD = join(import.meta.dirname, '../../dashboard/src');

/** Part edges (`from → to`) that still break the order, each with why: a debt with a name. None today. */
const NOT_YET: ReadonlyMap<string, string> = new Map([]);

const known = (found: readonly { file: string; imports: string; rule: string }[]) =>
  found.filter(({ rule }) => !NOT_YET.has(rule.slice(0, rule.indexOf(':'))));

/**
 * Sources (paths under src/) in which each file imports the next, by the relative specifier a
 * person would write; the last imports nothing unless it closes a cycle.
 */
function importing(...chain: readonly string[]): Map<string, string> {
  const sources = new Map(chain.map((file) => [file, '']));
  chain.slice(1).forEach((imported, i) => {
    const file = chain[i] as string;
    const specifier = posix.relative(posix.dirname(file), imported);
    sources.set(file, `import { x } from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';`);
  });
  return sources;
}

/** The one violation found names `rule` (its text goes on with the reason). */
function expectOneViolation(found: readonly { rule: string }[], rule: string): void {
  expect(found).toHaveLength(1);
  expect(found[0]?.rule).toMatch(new RegExp(`^${rule}`));
}

describe('import rules between the parts of src/ (docs/architecture.md)', () => {
  const sources = readSources(SRC);

  it('holds for every source file', () => {
    expect(sources.size).toBeGreaterThan(50);
    expect(known(violations(sources))).toEqual([]);
  });

  it('knows the part of every source file', () => {
    const parts = new Set(PARTS.map(({ name }) => name));
    expect([...new Set([...sources.keys()].map(partOf))].filter((part) => !parts.has(part))).toEqual([]);
  });

  it('finds no cycle between parts', () => {
    expect(partCycles(importGraph(sources), NOT_YET)).toEqual([]);
  });

  it('finds no cycle between files', () => {
    expect(fileCycles(importGraph(sources))).toEqual([]);
  });

  it.each([
    ['evaluation/operators.ts', 'storage/store.ts', 'evaluation → storage'],
    ['evaluation/rollout.ts', 'services/flag-service.ts', 'evaluation → services'],
    ['evaluation/jsonlogic/a.ts', 'http/problem.ts', 'evaluation → http'],
    ['flagd/import-flagd.ts', 'services/ids.ts', 'flagd → services'],
    ['flagd/validate-flagd-document.ts', 'http/problem.ts', 'flagd → http'],
    ['flagd/export-flagd.ts', 'storage/sql/rows.ts', 'flagd → storage'],
    ['domain/flag.ts', 'evaluation/rollout.ts', 'domain → evaluation'],
    ['domain/flag.ts', 'services/ids.ts', 'domain → services'],
    ['storage/sql/flags.ts', 'services/ids.ts', 'storage → services'],
    ['services/flags/flag-service.ts', 'http/problem.ts', 'services → http'],
    ['webhooks/outbox.ts', 'services/ids.ts', 'webhooks → services'],
    ['plane/snapshots.ts', 'services/commit.ts', 'plane → services'],
    ['plane/node-sync.ts', 'realtime/sse-streams.ts', 'plane → realtime'],
    ['services/services.ts', 'realtime/sse-streams.ts', 'services → realtime'],
    [
      'services/serving/evaluation-service.ts',
      'observability/evaluation-counts.ts',
      'services → observability',
    ],
    ['realtime/sse-streams.ts', 'observability/metrics.ts', 'realtime → observability'],
    ['openfeature/ofrep/ofrep-wire.ts', 'http/etag.ts', 'openfeature → http'],
    ['http/build-app.ts', 'main.ts', 'http → main'],
    ['mcp/tools.ts', 'services/services.ts', 'mcp → services'],
    ['mcp/resources.ts', 'storage/store.ts', 'mcp → storage'],
    ['mcp/mcp-server.ts', 'access/admission.ts', 'mcp → access'],
    ['mcp/tools.ts', 'http/route-access.ts', 'mcp → http'],
    ['mcp/tools.ts', 'openfeature/ofrep/ofrep-wire.ts', 'mcp → openfeature'],
    ['http/request-helpers.ts', 'storage/store.ts', 'http → storage'],
    ['http/plugins/errors.ts', 'storage/sql/sql-store.ts', 'http → storage'],
    ['access/admission.ts', 'services/access/api-key-service.ts', 'access → services'],
    ['access/admission.ts', 'http/plugins/guard.ts', 'access → http'],
    ['access/stream-access.ts', 'realtime/stream-token.ts', 'access → realtime'],
    ['plane/key-registry.ts', 'access/admission.ts', 'plane → access'],
    ['config.ts', 'evaluation/operators.ts', 'config → evaluation'],
    ['statistics/two-sided-t-test.ts', 'storage/store.ts', 'statistics → storage'],
    ['statistics/sequential-guard.ts', 'services/services.ts', 'statistics → services'],
    ['statistics/index.ts', 'evaluation/operators.ts', 'statistics → evaluation'],
  ])('fails on a deliberately wrong import: %s imports %s', (file, imported, rule) => {
    expectOneViolation(violations(importing(file, imported)), rule);
  });

  // Every way a TypeScript file can depend on another counts, not only a plain import.
  it.each([
    ['a type-only import', "import type { X } from '../services/ids.ts';"],
    ['a dynamic import', "const m = await import('../services/ids.ts');"],
    ['a re-export', "export { z } from './../services/ids.ts';"],
    ['an import over several lines', "import {\n  a,\n  b,\n} from '../services/ids.ts';"],
  ])('fails on a deliberately wrong import written as %s: %s', (_form, source) => {
    expectOneViolation(violations(new Map([['domain/flag.ts', source]])), 'domain → services');
  });

  it.each([
    ['flagd/import-flagd.ts', 'domain/keys.ts'],
    ['statistics/statistic.ts', 'domain/keys.ts'],
    ['flagd/native-to-json-logic.ts', 'evaluation/operators.ts'],
    ['services/flags/flagd-service.ts', 'flagd/import-flagd.ts'],
    ['openfeature/flagd/sync-selector.ts', 'services/services.ts'],
    ['storage/sql/flags.ts', 'domain/flag.ts'],
    ['http/routes/flags.ts', 'services/services.ts'],
    ['services/core/audit.ts', 'webhooks/outbox.ts'],
    ['http/routes/explain.ts', 'openfeature/ofrep/ofrep-evaluation.ts'],
    ['main.ts', 'http/build-app.ts'],
    ['access/access-checks.ts', 'storage/store.ts'],
    ['access/api-key-authentication.ts', 'plane/key-registry.ts'],
    ['services/flags/flag-service.ts', 'access/access-rules.ts'],
    ['http/plugins/guard.ts', 'access/admission.ts'],
    ['openfeature/flagd-sync-server.ts', 'access/admission.ts'],
    ['http/request-helpers.ts', 'domain/page.ts'],
    ['cli.ts', 'main.ts'],
  ])('allows %s to import %s', (file, imported) => {
    expect(violations(importing(file, imported))).toEqual([]);
  });

  it('fails on a deliberate cycle between parts, naming its chain and imports', () => {
    const graph = importGraph(importing('services/core/audit.ts', 'webhooks/outbox.ts', 'services/ids.ts'));
    expect(partCycles(graph)).toEqual([
      'services → webhooks → services (services/core/audit.ts imports webhooks/outbox.ts; webhooks/outbox.ts imports services/ids.ts)',
    ]);
  });

  it('fails on a deliberate cycle between files, naming its chain', () => {
    const graph = importGraph(
      importing('storage/store.ts', 'storage/approval-store.ts', 'storage/page.ts', 'storage/store.ts'),
    );
    expect(fileCycles(graph)).toEqual([
      'storage/approval-store.ts → storage/page.ts → storage/store.ts → storage/approval-store.ts',
    ]);
  });

  it.each([
    ['main.ts', 'main'],
    ['config.ts', 'config'],
    ['cli.ts', 'cli'],
    ['cli/keys.ts', 'cli'],
    ['openfeature/flagd/sync-selector.ts', 'openfeature'],
    ['flagd/import-flagd.ts', 'flagd'],
    ['statistics/sequential-guard.ts', 'statistics'],
    ['access/admission.ts', 'access'],
  ])('places %s in the part %s, as docs/architecture.md names it', (file, part) => {
    expect(partOf(file)).toBe(part);
  });
});

describe('import rules between the folders of src/services/ (docs/architecture.md)', () => {
  const sources = readSources(SRC);

  it('holds for every use case, and every file of services/ sits in a named folder or is the assembly', () => {
    const folders = new Set(SERVICE_FOLDERS.map(({ name }) => name));
    const loose = [...sources.keys()].filter(
      (file) => /^services\/[^/]+$/.test(file) && file !== 'services/services.ts',
    );
    expect(loose).toEqual([]);
    // Nine folders and the assembly, read from docs/architecture.md.
    expect(folders.size).toBe(10);
    expect(serviceFolderViolations(sources)).toEqual([]);
  });

  it.each([
    ['services/core/audit.ts', 'services/flags/flag-service.ts', 'services/core → services/flags'],
    [
      'services/flags/flag-service.ts',
      'services/governance/change-request-service.ts',
      'services/flags → services/governance',
    ],
    [
      'services/accounts/session-service.ts',
      'services/access/api-key-service.ts',
      'services/accounts → services/access',
    ],
  ])('fails on a deliberately wrong import: %s imports %s', (file, imported, rule) => {
    expectOneViolation(serviceFolderViolations(importing(file, imported)), rule);
  });

  it('allows a use case to build on core and a higher folder on a lower one', () => {
    const files = importing(
      'services/services.ts',
      'services/governance/change-scheduler.ts',
      'services/flags/flag-service.ts',
      'services/core/audit.ts',
    );
    expect(serviceFolderViolations(files)).toEqual([]);
  });
});

describe('import rules of the dashboard (docs/decisions/0602-dashboard-app.md)', () => {
  const sources = readSources(DASHBOARD, ['.ts', '.tsx']);
  const graph = importGraph(sources);

  it('finds no cycle between its files', () => {
    expect(sources.size).toBeGreaterThan(20);
    expect(fileCycles(graph)).toEqual([]);
  });

  it('shares only the domain’s types with the server', () => {
    const reaches = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => target.startsWith('..')).map((target) => `${file} imports ${target}`),
    );
    expect(reaches.length).toBeGreaterThan(0);
    expect(reaches.filter((line) => !/ imports (\.\.\/)+src\/domain\//.test(line))).toEqual([]);
  });

  it('takes the wire contract (domain/schemas) as types only, so no schema reaches the bundle', () => {
    const wire = schemaImports(sources);
    expect(wire.length).toBeGreaterThan(5);
    expect(wire.filter(({ typeOnly }) => !typeOnly).map(({ file }) => file)).toEqual([]);
    const valueImport = "import { FlagSchema } from '../../src/domain/schemas/flag-schema.ts';";
    expect(schemaImports(new Map([['api.ts', valueImport]]))).toEqual([{ file: 'api.ts', typeOnly: false }]);
  });
});

/** Each import of `src/domain/schemas/` in the dashboard, and whether it is `import type`. */
function schemaImports(sources: ReadonlyMap<string, string>): { file: string; typeOnly: boolean }[] {
  return [...sources].flatMap(([file, source]) =>
    [...source.matchAll(/\bimport\s+(type\s+)?[^;'"]*?from\s*['"](?:\.\.\/)+src\/domain\/schemas\//g)].map(
      ([, type]) => ({ file, typeOnly: type !== undefined }),
    ),
  );
}
/** Imports that leave the folder the graph was read from, as `file imports target`. */
const leaving = (graph: ReadonlyMap<string, readonly string[]>) =>
  [...graph].flatMap(([file, targets]) =>
    targets.filter((target) => target.startsWith('..')).map((target) => `${file} imports ${target}`),
  );

describe('import rules of the OpenFeature client package (clients/openfeature, decision 1930)', () => {
  const sources = readSources(join(import.meta.dirname, '../../clients/openfeature/src'));
  const graph = importGraph(sources);

  it('finds no cycle between its files', () => {
    expect(sources.size).toBeGreaterThan(5);
    expect(fileCycles(graph)).toEqual([]);
  });

  it('imports nothing outside its own sources, so that it is published alone', () => {
    expect(leaving(graph)).toEqual([]);
  });

  it('fails on a deliberate import of server code', () => {
    const wrong = importGraph(
      new Map([['tracking.ts', "import { newId } from '../../../src/domain/ids.ts';"]]),
    );
    expect(leaving(wrong)).toEqual(['tracking.ts imports ../../../src/domain/ids.ts']);
  });
});

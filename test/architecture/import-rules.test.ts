import { join } from 'node:path';
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
    ['evaluation/operators.ts', "import { Store } from '../storage/store.ts';", 'evaluation → storage'],
    [
      'evaluation/rollout.ts',
      "import type { X } from '../services/flag-service.ts';",
      'evaluation → services',
    ],
    ['evaluation/jsonlogic/a.ts', "const m = await import('../../http/problem.ts');", 'evaluation → http'],
    ['flagd/import-flagd.ts', "import { x } from '../services/ids.ts';", 'flagd → services'],
    ['flagd/validate-flagd-document.ts', "import { y } from '../http/problem.ts';", 'flagd → http'],
    ['flagd/export-flagd.ts', "import { y } from '../storage/sql/rows.ts';", 'flagd → storage'],
    ['domain/flag.ts', "import { z } from '../evaluation/rollout.ts';", 'domain → evaluation'],
    ['domain/flag.ts', "export { z } from './../services/ids.ts';", 'domain → services'],
    ['storage/sql/flags.ts', "import {\n  a,\n  b,\n} from '../../services/ids.ts';", 'storage → services'],
    ['services/flags/flag-service.ts', "import { p } from '../../http/problem.ts';", 'services → http'],
    ['webhooks/outbox.ts', "import { newId } from '../services/ids.ts';", 'webhooks → services'],
    ['plane/snapshots.ts', "import { s } from '../services/commit.ts';", 'plane → services'],
    ['plane/node-sync.ts', "import { r } from '../realtime/sse-streams.ts';", 'plane → realtime'],
    ['services/services.ts', "import { S } from '../realtime/sse-streams.ts';", 'services → realtime'],
    [
      'services/serving/evaluation-service.ts',
      "import { C } from '../../observability/evaluation-counts.ts';",
      'services → observability',
    ],
    [
      'realtime/sse-streams.ts',
      "import { m } from '../observability/metrics.ts';",
      'realtime → observability',
    ],
    ['openfeature/ofrep/ofrep-wire.ts', "import { e } from '../../http/etag.ts';", 'openfeature → http'],
    ['http/build-app.ts', "import { serve } from '../main.ts';", 'http → main'],
    ['config.ts', "import { m } from './evaluation/operators.ts';", 'config → evaluation'],
  ])('fails on a deliberately wrong import: %s %s', (file, source, rule) => {
    const found = violations(new Map([[file, source]]));
    expect(found).toHaveLength(1);
    expect(found[0]?.rule).toMatch(new RegExp(`^${rule}`));
  });

  it.each([
    ['flagd/import-flagd.ts', "import { KEY_PATTERN } from '../domain/keys.ts';"],
    ['flagd/native-to-json-logic.ts', "import { textOf } from '../evaluation/operators.ts';"],
    ['services/flags/flagd-service.ts', "import { importFlagd } from '../../flagd/import-flagd.ts';"],
    ['openfeature/flagd/sync-selector.ts', "import { x } from '../../services/services.ts';"],
    ['storage/sql/flags.ts', "import type { Flag } from '../../domain/flag.ts';"],
    ['http/routes/flags.ts', "import type { Services } from '../../services/services.ts';"],
    ['services/core/audit.ts', "import { enqueue } from '../../webhooks/outbox.ts';"],
    [
      'http/routes/explain.ts',
      "import { toOfrepResult } from '../../openfeature/ofrep/ofrep-evaluation.ts';",
    ],
    ['main.ts', "import { buildApp } from './http/build-app.ts';"],
    ['cli.ts', "import { serve } from './main.ts';"],
  ])('allows %s: %s', (file, source) => {
    expect(violations(new Map([[file, source]]))).toEqual([]);
  });

  it('fails on a deliberate cycle between parts, naming its chain and imports', () => {
    const graph = importGraph(
      new Map([
        ['services/core/audit.ts', "import { o } from '../../webhooks/outbox.ts';"],
        ['webhooks/outbox.ts', "import { newId } from '../services/ids.ts';"],
        ['services/ids.ts', ''],
      ]),
    );
    expect(partCycles(graph)).toEqual([
      'services → webhooks → services (services/core/audit.ts imports webhooks/outbox.ts; webhooks/outbox.ts imports services/ids.ts)',
    ]);
  });

  it('fails on a deliberate cycle between files, naming its chain', () => {
    const graph = importGraph(
      new Map([
        ['storage/store.ts', "import type { A } from './approval-store.ts';"],
        ['storage/approval-store.ts', "import type { Page } from './page.ts';"],
        ['storage/page.ts', "import type { S } from './store.ts';"],
      ]),
    );
    expect(fileCycles(graph)).toEqual([
      'storage/approval-store.ts → storage/page.ts → storage/store.ts → storage/approval-store.ts',
    ]);
  });

  it('names the parts as docs/architecture.md does', () => {
    expect(partOf('main.ts')).toBe('main');
    expect(partOf('config.ts')).toBe('config');
    expect(partOf('cli.ts')).toBe('cli');
    expect(partOf('cli/keys.ts')).toBe('cli');
    expect(partOf('openfeature/flagd/sync-selector.ts')).toBe('openfeature');
    expect(partOf('flagd/import-flagd.ts')).toBe('flagd');
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
    // Seven folders and the assembly, read from docs/architecture.md.
    expect(folders.size).toBe(8);
    expect(serviceFolderViolations(sources)).toEqual([]);
  });

  it.each([
    [
      'services/core/audit.ts',
      "import { f } from '../flags/flag-service.ts';",
      'services/core → services/flags',
    ],
    [
      'services/flags/flag-service.ts',
      "import { c } from '../governance/change-request-service.ts';",
      'services/flags → services/governance',
    ],
    [
      'services/accounts/session-service.ts',
      "import { k } from '../access/api-key-service.ts';",
      'services/accounts → services/access',
    ],
  ])('fails on a deliberately wrong import: %s %s', (file, source, rule) => {
    const found = serviceFolderViolations(new Map([[file, source]]));
    expect(found).toHaveLength(1);
    expect(found[0]?.rule).toMatch(new RegExp(`^${rule}`));
  });

  it('allows a use case to build on core and a higher folder on a lower one', () => {
    const files = new Map([
      ['services/governance/change-scheduler.ts', "import { f } from '../flags/flag-service.ts';"],
      ['services/flags/flag-service.ts', "import { a } from '../core/audit.ts';"],
      ['services/services.ts', "import { c } from './governance/change-scheduler.ts';"],
    ]);
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
});

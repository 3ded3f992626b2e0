import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerOf, readSources, violations } from './import-graph.ts';

const SRC = join(import.meta.dirname, '../../src');

describe('import rules between the layers of src/ (docs/architecture.md)', () => {
  it('holds for every source file', () => {
    const sources = readSources(SRC);
    expect(sources.size).toBeGreaterThan(50);
    expect(violations(sources)).toEqual([]);
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
    ['services/flag-service.ts', "import { p } from '../http/problem.ts';", 'services → http'],
    [
      'services/flagd-service.ts',
      "import { o } from '../openfeature/ofrep/ofrep-wire.ts';",
      'services → openfeature',
    ],
    ['plane/snapshots.ts', "import { s } from '../services/commit.ts';", 'plane → services'],
    ['plane/node-sync.ts', "import { r } from '../realtime/sse-streams.ts';", 'plane → realtime'],
    ['services/services.ts', "import { S } from '../realtime/sse-streams.ts';", 'services → realtime'],
    [
      'services/evaluation-service.ts',
      "import { C } from '../observability/evaluation-counts.ts';",
      'services → observability',
    ],
  ])('fails on a deliberately wrong import: %s %s', (file, source, rule) => {
    const found = violations(new Map([[file, source]]));
    expect(found).toHaveLength(1);
    expect(found[0]?.rule).toMatch(new RegExp(`^${rule}`));
  });

  it.each([
    ['flagd/import-flagd.ts', "import { KEY_PATTERN } from '../domain/keys.ts';"],
    ['flagd/native-to-json-logic.ts', "import { textOf } from '../evaluation/operators.ts';"],
    ['services/flagd-service.ts', "import { importFlagd } from '../flagd/import-flagd.ts';"],
    ['openfeature/flagd/sync-selector.ts', "import { x } from '../../services/services.ts';"],
    ['storage/sql/flags.ts', "import type { Flag } from '../../domain/flag.ts';"],
    ['http/routes/flags.ts', "import type { Services } from '../../services/services.ts';"],
  ])('allows %s: %s', (file, source) => {
    expect(violations(new Map([[file, source]]))).toEqual([]);
  });

  it('names the layers as docs/architecture.md does', () => {
    expect(layerOf('main.ts')).toBe('app');
    expect(layerOf('openfeature/flagd/sync-selector.ts')).toBe('openfeature');
    expect(layerOf('flagd/import-flagd.ts')).toBe('flagd');
    expect(layerOf('openfeature/ofrep/ofrep-routes.ts')).toBe('openfeature');
  });
});

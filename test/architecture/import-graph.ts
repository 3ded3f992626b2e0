import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/**
 * The layers of src/ (docs/architecture.md) and what each may import. A layer is a file's
 * first folder under src/, so the pure flagd codec is `flagd` (src/flagd/) while the gRPC sync
 * adapter in src/openfeature/flagd/ is `openfeature`. Files directly in src/ (config.ts,
 * main.ts, cli.ts) are `app`.
 */
export type Layer = string;

interface Rule {
  /** Only these layers (its own included); absent: any but `mayNot`. */
  readonly may?: readonly Layer[];
  readonly mayNot?: readonly Layer[];
  readonly why: string;
}

export const RULES: Readonly<Record<Layer, Rule>> = {
  domain: { may: ['domain'], why: 'the domain is the vocabulary everyone shares: it imports nothing' },
  evaluation: {
    may: ['domain', 'evaluation'],
    why: 'evaluation is pure: no storage, HTTP or use cases, so it runs anywhere and is benchmarked alone',
  },
  flagd: {
    may: ['domain', 'evaluation', 'flagd'],
    why: 'the flagd codec is pure translation between documents and the domain',
  },
  storage: {
    mayNot: ['services', 'http', 'openfeature', 'app', 'cli'],
    why: 'storage serves the use cases; it never calls them',
  },
  plane: {
    may: ['domain', 'evaluation', 'flagd', 'storage', 'plane'],
    why: 'the evaluation plane is the read model: it knows storage ports and pure code, not the use cases or their consumers',
  },
  services: {
    mayNot: ['http', 'openfeature', 'app', 'cli', 'realtime', 'observability'],
    why: 'use cases know nothing of the protocols that call them, nor of the consumers wired at the composition root',
  },
};

export function layerOf(srcRelative: string): Layer {
  const parts = srcRelative.split(/[\\/]/);
  if (parts.length === 1) return 'app';
  return parts[0] as Layer;
}

/** The module specifiers a TypeScript source imports: static, type-only, re-exports and dynamic. */
export function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

export interface Violation {
  readonly file: string;
  readonly imports: string;
  readonly rule: string;
}

/** Every import between layers of `files` (src-relative path → source) that breaks a rule. */
export function violations(files: ReadonlyMap<string, string>): Violation[] {
  const found: Violation[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file);
    const rule = RULES[from];
    if (rule === undefined) continue;
    for (const specifier of specifiersOf(source)) {
      if (!specifier.startsWith('.')) continue; // packages and node: built-ins
      const target = normalize(join(dirname(file), specifier));
      if (target.startsWith('..')) {
        found.push({ file, imports: specifier, rule: `${from} imports from outside src/` });
        continue;
      }
      const to = layerOf(target);
      const allowed = rule.may ? rule.may.includes(to) : !rule.mayNot?.includes(to);
      if (!allowed) found.push({ file, imports: specifier, rule: `${from} → ${to}: ${rule.why}` });
    }
  }
  return found;
}

/** The production sources under `root` (unit tests beside them are not part of the layers). */
export function readSources(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
    files.set(
      relative(root, join(root, entry)).split(sep).join('/'),
      readFileSync(join(root, entry), 'utf8'),
    );
  }
  return files;
}

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** A part of src/, or a folder of services/, on its level of docs/architecture.md. */
interface Part {
  readonly name: string;
  readonly level: number;
  /** Why it sits where it does: shown when an import breaks the order. */
  readonly why: string;
}

const ARCHITECTURE = readFileSync(join(import.meta.dirname, '../../docs/architecture.md'), 'utf8');

/**
 * The level table (`| level | names | why |`) of the section `heading` of docs/architecture.md:
 * every name in backquotes on its row's level, with the row's why. The page states the rule and
 * the test reads it there, so the two cannot disagree.
 */
function levelTable(heading: string): Part[] {
  const section = ARCHITECTURE.split(/^## /m).find((s) => s.startsWith(`${heading}\n`)) ?? '';
  return [...section.matchAll(/^\| (\d+) \| ([^|]+) \| ([^|]+) \|$/gm)].flatMap(([, level, names, why]) =>
    [...(names as string).matchAll(/`([^`]+)`/g)].map(([, name]) => ({
      name: name as string,
      level: Number(level),
      why: (why as string).trim(),
    })),
  );
}

/**
 * The parts of src/, lowest first. A part is a file's first folder under src/; of the files
 * directly in src/, config.ts is `config`, main.ts `main` and cli.ts `cli` (with src/cli/). A part
 * imports only parts of a lower level, so no two parts can import each other; parts of one level
 * do not import each other either.
 */
export const PARTS: readonly Part[] = levelTable('What may import what');

/** An import the levels would allow but the page rules out: `from` never imports `to`. */
interface Bar {
  readonly from: string;
  readonly to: string;
  readonly why: string;
}

/**
 * The table `| part | never imports | why |` of "What may import what": a part kept from one
 * below it (http from storage: the edge reaches the database only through the use cases).
 */
export const BARS: readonly Bar[] = [
  ...(ARCHITECTURE.split(/^## /m).find((s) => s.startsWith('What may import what\n')) ?? '').matchAll(
    /^\| `([^`]+)` \| `([^`]+)` \| ([^|]+) \|$/gm,
  ),
].map(([, from, to, why]) => ({ from: from as string, to: to as string, why: (why as string).trim() }));

export function partOf(srcRelative: string): string {
  const parts = srcRelative.split(/[\\/]/);
  if (parts.length > 1) return parts[0] as string;
  return (parts[0] as string).replace(/\.tsx?$/, '');
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

/** file → the files it imports, by relative specifier (packages and `node:` built-ins are not files). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export function importGraph(files: ReadonlyMap<string, string>): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const targets = specifiersOf(source)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) =>
        normalize(join(dirname(file), specifier))
          .split(sep)
          .join('/'),
      );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

export interface Violation {
  readonly file: string;
  readonly imports: string;
  readonly rule: string;
}

/** Groups of files on levels: a group imports only groups of a lower level. */
interface Layering {
  readonly levels: readonly Part[];
  /** What docs/architecture.md's table lists: `parts`, `folders of services/`. */
  readonly kind: string;
  /** The group of a file, or undefined for a file this layering does not order. */
  readonly groupOf: (file: string) => string | undefined;
  /** A group as a rule names it: `flags`, `services/flags`. */
  readonly named: (group: string) => string;
}

/** Every import between groups of `files` (src-relative path → source) that breaks the order. */
function layerViolations(files: ReadonlyMap<string, string>, layering: Layering): Violation[] {
  const byName = new Map(layering.levels.map((group) => [group.name, group]));
  const found: Violation[] = [];
  for (const [file, targets] of importGraph(files)) {
    const fromName = layering.groupOf(file);
    if (fromName === undefined) continue;
    const from = byName.get(fromName);
    if (from === undefined) {
      const rule = `${layering.named(fromName)} is not in docs/architecture.md's table of ${layering.kind}`;
      found.push({ file, imports: '', rule });
      continue;
    }
    for (const target of targets) {
      const toName = layering.groupOf(target);
      if (toName === undefined || toName === fromName) continue;
      const to = byName.get(toName);
      if (to !== undefined && to.level < from.level) continue;
      const rule = `${layering.named(fromName)} → ${layering.named(toName)}: ${from.why}`;
      found.push({ file, imports: target, rule });
    }
  }
  return found;
}

/** Every import of `files` (src-relative path → source) that breaks the order of the parts of src/. */
export function violations(files: ReadonlyMap<string, string>): Violation[] {
  const outside = [...importGraph(files)].flatMap(([file, targets]) =>
    targets
      .filter((target) => target.startsWith('..'))
      .map((target) => ({ file, imports: target, rule: `${partOf(file)} imports from outside src/` })),
  );
  const parts = layerViolations(files, {
    levels: PARTS,
    kind: 'parts',
    groupOf: (file) => (file.startsWith('..') ? undefined : partOf(file)),
    named: (part) => part,
  });
  const barred = [...importGraph(files)].flatMap(([file, targets]) =>
    targets.flatMap((target) => {
      const bar = BARS.find(({ from, to }) => from === partOf(file) && to === partOf(target));
      return bar === undefined
        ? []
        : [{ file, imports: target, rule: `${bar.from} → ${bar.to}: ${bar.why}` }];
    }),
  );
  return [...outside, ...parts, ...barred];
}

/**
 * The folders of services/, lowest first: each owns one part of the product, and a folder imports
 * only folders of a lower level, so use cases never reach back into each other. `services.ts`, the
 * assembly, stands above them all.
 */
export const SERVICE_FOLDERS: readonly Part[] = levelTable('The folders of services/');

/** The folder of a file under services/ (`services.ts` for the assembly), or undefined. */
export function serviceFolderOf(srcRelative: string): string | undefined {
  const [top, folder] = srcRelative.split('/');
  return top === 'services' ? folder : undefined;
}

/** Every import between folders of services/ that breaks their order. */
export function serviceFolderViolations(files: ReadonlyMap<string, string>): Violation[] {
  return layerViolations(files, {
    levels: SERVICE_FOLDERS,
    kind: 'folders of services/',
    groupOf: serviceFolderOf,
    named: (folder) => `services/${folder}`,
  });
}

/** Strongly connected components of more than one node (Tarjan), each in a stable order. */
function cyclicComponents(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

/** The shortest way round a component, from its first member back to it: `a → b → a`. */
function chainThrough(component: readonly string[], graph: ReadonlyMap<string, readonly string[]>): string[] {
  const members = new Set(component);
  const start = component[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const chain = [start];
        for (let at = node; at !== start; at = cameFrom.get(at) as string) chain.splice(1, 0, at);
        return [...chain, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [...component, start];
}

/** Every file-level import cycle, named by its chain: `storage/a.ts → storage/b.ts → storage/a.ts`. */
export function fileCycles(graph: ImportGraph): string[] {
  return cyclicComponents(graph).map((component) => chainThrough(component, graph).join(' → '));
}

/**
 * Every part-level cycle, named by its chain and the imports that make each step:
 * `services → realtime → services (services/services.ts imports realtime/sse-streams.ts; …)`.
 * `allowed` lists part edges (`from → to`) left out, each with the reason it is still there.
 */
export function partCycles(graph: ImportGraph, allowed: ReadonlyMap<string, string> = new Map()): string[] {
  const parts = new Map<string, Set<string>>();
  const witness = new Map<string, string>();
  for (const [file, targets] of graph) {
    const from = partOf(file);
    if (!parts.has(from)) parts.set(from, new Set());
    for (const target of targets) {
      const to = partOf(target);
      if (to === from || target.startsWith('..') || allowed.has(`${from} → ${to}`)) continue;
      parts.get(from)?.add(to);
      if (!witness.has(`${from} → ${to}`)) witness.set(`${from} → ${to}`, `${file} imports ${target}`);
    }
  }
  const partGraph = new Map([...parts].map(([part, targets]) => [part, [...targets].sort()]));
  return cyclicComponents(partGraph).map((component) => {
    const chain = chainThrough(component, partGraph);
    const steps = chain.slice(1).map((to, i) => witness.get(`${chain[i]} → ${to}`));
    return `${chain.join(' → ')} (${steps.join('; ')})`;
  });
}

/** The sources under `root` with these extensions (unit tests beside them are not part of the graph). */
export function readSources(root: string, extensions: readonly string[] = ['.ts']): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!extensions.some((extension) => entry.endsWith(extension))) continue;
    if (/\.test\.tsx?$/.test(entry)) continue;
    files.set(
      relative(root, join(root, entry)).split(sep).join('/'),
      readFileSync(join(root, entry), 'utf8'),
    );
  }
  return files;
}

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/**
 * The parts of src/ (docs/architecture.md), lowest first. A part is a file's first folder under
 * src/; of the files directly in src/, config.ts is `config`, main.ts `main` and cli.ts `cli`
 * (with src/cli/). A part imports only parts of a lower level, so no two parts can import each
 * other; parts of one level do not import each other either.
 */
interface Part {
  readonly name: string;
  readonly level: number;
  /** Why it sits where it does: shown when an import breaks the order. */
  readonly why: string;
}

export const PARTS: readonly Part[] = [
  { name: 'domain', level: 0, why: 'the domain is the vocabulary everyone shares: it imports nothing' },
  {
    name: 'config',
    level: 1,
    why: "config reads the environment once, into the domain's types (roles, the OIDC role mapping)",
  },
  {
    name: 'evaluation',
    level: 1,
    why: 'evaluation is pure: no storage, HTTP or use cases, so it runs anywhere and is benchmarked alone',
  },
  { name: 'flagd', level: 2, why: 'the flagd codec is pure translation between documents and the domain' },
  { name: 'storage', level: 3, why: 'storage serves the use cases; it never calls them' },
  {
    name: 'plane',
    level: 4,
    why: 'the evaluation plane reads storage and the change feed; the use cases write through it',
  },
  {
    name: 'insights',
    level: 4,
    why: 'insights count evaluations and hold the stale rule: fed at the composition root, read by a use case',
  },
  {
    name: 'webhooks',
    level: 4,
    why: 'webhooks: the outbox the use cases write in their transaction, the dispatcher main.ts starts',
  },
  { name: 'services', level: 5, why: 'use cases know nothing of the protocols and consumers around them' },
  { name: 'realtime', level: 6, why: 'realtime consumes changes; it is wired at the composition root' },
  {
    name: 'observability',
    level: 6,
    why: 'metrics and tracing consume evaluations and requests; they are wired at the composition root',
  },
  {
    name: 'openfeature',
    level: 7,
    why: 'OpenFeature translations (OFREP shapes, flagd sync) sit below the HTTP routes that serve them',
  },
  { name: 'http', level: 8, why: 'HTTP is the edge: only the composition root and the CLI sit above it' },
  { name: 'main', level: 9, why: 'main.ts wires every part' },
  { name: 'cli', level: 10, why: 'the command line starts the server or talks to the store' },
];

const BY_NAME = new Map(PARTS.map((part) => [part.name, part]));

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

/** Every import between parts of `files` (src-relative path → source) that breaks the order. */
export function violations(files: ReadonlyMap<string, string>): Violation[] {
  const found: Violation[] = [];
  for (const [file, targets] of importGraph(files)) {
    const from = BY_NAME.get(partOf(file));
    if (from === undefined) {
      found.push({ file, imports: '', rule: `${partOf(file)} is not a part of docs/architecture.md` });
      continue;
    }
    for (const target of targets) {
      if (target.startsWith('..')) {
        found.push({ file, imports: target, rule: `${from.name} imports from outside src/` });
        continue;
      }
      const to = BY_NAME.get(partOf(target));
      if (to === undefined || to === from || to.level < from.level) continue;
      found.push({ file, imports: target, rule: `${from.name} → ${to.name}: ${from.why}` });
    }
  }
  return found;
}

/**
 * The folders of services/ (docs/architecture.md), lowest first: each owns one part of the product,
 * and a folder imports only folders of a lower level, so use cases never reach back into each other.
 */
export const SERVICE_FOLDERS: readonly Part[] = [
  {
    name: 'core',
    level: 0,
    why: 'core holds what every use case writes with: access rules, the actor, audit, the commit, the gate',
  },
  { name: 'flags', level: 1, why: 'flags and segments, their validation and their flagd form' },
  { name: 'access', level: 1, why: 'API keys and failed sign-in budgets' },
  { name: 'accounts', level: 1, why: 'accounts, passwords, sessions, single sign-on and provisioning' },
  {
    name: 'serving',
    level: 1,
    why: 'evaluation, insights and health: reads that serve applications and operators',
  },
  {
    name: 'projects',
    level: 2,
    why: 'projects, environments and their webhooks; a new project gets its first key',
  },
  {
    name: 'governance',
    level: 2,
    why: 'change requests and scheduled changes hold pending flag and segment changes and apply them later',
  },
];

const SERVICE_FOLDER = new Map(SERVICE_FOLDERS.map((folder) => [folder.name, folder]));

/** The folder of a file under services/ (`services.ts`, the assembly, is `assembly`), or undefined. */
export function serviceFolderOf(srcRelative: string): string | undefined {
  const parts = srcRelative.split('/');
  if (parts[0] !== 'services') return undefined;
  return parts.length > 2 ? parts[1] : 'assembly';
}

/** Every import between folders of services/ that breaks their order (only the assembly imports them all). */
export function serviceFolderViolations(files: ReadonlyMap<string, string>): Violation[] {
  const found: Violation[] = [];
  for (const [file, targets] of importGraph(files)) {
    const fromName = serviceFolderOf(file);
    if (fromName === undefined || fromName === 'assembly') continue;
    const from = SERVICE_FOLDER.get(fromName);
    if (from === undefined) {
      found.push({ file, imports: '', rule: `services/${fromName} is not a folder of docs/architecture.md` });
      continue;
    }
    for (const target of targets) {
      const toName = serviceFolderOf(target);
      if (toName === undefined || toName === fromName) continue;
      const to = SERVICE_FOLDER.get(toName);
      if (to !== undefined && to.level < from.level) continue;
      found.push({ file, imports: target, rule: `services/${from.name} → services/${toName}: ${from.why}` });
    }
  }
  return found;
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

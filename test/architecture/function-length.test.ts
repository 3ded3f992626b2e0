import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAst } from 'rolldown/parseAst';
import { describe, expect, it } from 'vitest';

/**
 * No function in src/ or dashboard/src/ grows past a screenful (docs/architecture.md: small
 * modules with one job). Every function counts, as a reader meets it: declarations, methods,
 * arrows, React components, the route handlers inside a plugin and the plugin body holding them.
 * The source is parsed (rolldown's parser, which Vite already brings), not matched by pattern, so
 * a class method or a nested callback cannot hide.
 */
const MOST_LINES = 70;
const ROOTS = ['src', 'dashboard/src'];
const ROOT = join(import.meta.dirname, '../..');

interface Measured {
  file: string;
  name: string;
  line: number;
  lines: number;
}

type Node = { type?: unknown; start?: number; end?: number; [key: string]: unknown };
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** The source files below a folder, tests and declarations left out. */
function sourcesBelow(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** A function's own name, or the name it is bound to (a variable, a property, a method). */
function nameOf(fn: Node, parent: Node | undefined, enclosing: string): string {
  const own = (fn.id as Node | null | undefined)?.name;
  const bound = (parent?.id as Node | undefined)?.name ?? (parent?.key as Node | undefined)?.name;
  const name = own ?? bound;
  if (typeof name === 'string') return name;
  return enclosing === '' ? '(anonymous)' : `${enclosing} › (callback)`;
}

/** Every function of a source text, with the line it starts on and how many lines it spans. */
function functionLengths(file: string, text: string): Measured[] {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  const found: Measured[] = [];
  const visit = (node: unknown, parent: Node | undefined, enclosing: string): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, parent, enclosing);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const current = node as Node;
    let inside = enclosing;
    if (typeof current.type === 'string' && FUNCTIONS.has(current.type)) {
      const name = nameOf(current, parent, enclosing);
      const line = lineOf(current.start ?? 0);
      found.push({ file, name, line, lines: lineOf(current.end ?? 0) - line + 1 });
      inside = name;
    }
    for (const [key, child] of Object.entries(current)) {
      if (key !== 'parent' && typeof child === 'object') visit(child, current, inside);
    }
  };
  visit(parseAst(text, { lang: file.endsWith('.tsx') ? 'tsx' : 'ts' }, file).body, undefined, '');
  return found;
}

const measured = ROOTS.flatMap(sourcesBelow).flatMap((file) =>
  functionLengths(file, readFileSync(join(ROOT, file), 'utf8')),
);

describe('functions stay short', () => {
  it('measures what it should: nested callbacks, methods and components each count', () => {
    const text = [
      'export function register(app) {',
      '  app.get("/a", async () => {',
      '    return 1;',
      '  });',
      '}',
      'class A {',
      '  method() {',
      '    return 2;',
      '  }',
      '}',
      'const Page = () => <div />;',
    ].join('\n');
    expect(functionLengths('x.tsx', text).map(({ name, line, lines }) => ({ name, line, lines }))).toEqual([
      { name: 'register', line: 1, lines: 5 },
      { name: 'register › (callback)', line: 2, lines: 3 },
      { name: 'method', line: 7, lines: 3 },
      { name: 'Page', line: 11, lines: 1 },
    ]);
  });

  it('reads the whole tree', () => {
    expect(measured.length).toBeGreaterThan(1000);
  });

  it(`no function is longer than ${MOST_LINES} lines`, () => {
    const long = measured.filter((f) => f.lines > MOST_LINES);
    expect(long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
  });
});

import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import {
  Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type YAMLError,
} from 'yaml';
import { pointerToken } from '../../domain/json.ts';
import { FILES_SCHEMA_PATH } from '../../domain/schemas/project-files.ts';
import { jsonProblem } from './json-problem.ts';

// Reading and writing a project folder (docs/flags-as-code.md):
//   project.yaml          the project and its environments
//   segments/<key>.yaml   one segment each
//   flags/<key>.yaml      one flag each, with its state per environment
//   flagd/<env>.json      optionally, a flagd document giving one environment's flags
// YAML or JSON alike (.yaml, .yml, .json); every value keeps its line, for error messages.

export interface Problem {
  /** The file, relative to the folder given on the command line. */
  readonly file: string;
  readonly line?: number | undefined;
  /** A JSON pointer into the file. */
  readonly field?: string | undefined;
  readonly message: string;
}

export const formatProblem = (p: Problem) =>
  `${p.file}${p.line === undefined ? '' : `:${p.line}`}: ${p.field ? `${p.field}: ` : ''}${p.message}`;

export interface SourceFile {
  /** Relative to the folder given on the command line. */
  readonly path: string;
  readonly value: unknown;
  /** The line of the value (or the field name) at a JSON pointer, or of its nearest ancestor. */
  readonly lineOf: (pointer: string) => number | undefined;
}

export interface ProjectFolder {
  readonly dir: string;
  readonly project: SourceFile | undefined;
  readonly segments: readonly SourceFile[];
  readonly flags: readonly SourceFile[];
  /** flagd documents by environment key. */
  readonly flagd: readonly { readonly environment: string; readonly file: SourceFile }[];
}

const DATA_FILE = /\.(ya?ml|json)$/;

/** The line of an offset in `text`. */
const lineOfOffset = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/**
 * A YAML error where a person looks for it, in words: an unclosed quote or bracket at where it
 * opens (the reader notices only where the file or the collection ends).
 */
function yamlProblem(path: string, text: string, error: YAMLError): Problem {
  const [at] = error.pos;
  const quote = /^Missing closing (["'])quote/.exec(error.message)?.[1];
  const bracket = /end with an? ([\]}])/.exec(error.message)?.[1];
  let offset = at;
  let message = error.message.split('\n')[0] as string;
  if (quote !== undefined) {
    for (let i = at - 1; i >= 0; i--) {
      if (text[i] === quote && text[i - 1] !== '\\') {
        offset = i;
        message = `a string opened with ${quote} here is never closed`;
        break;
      }
    }
  } else if (bracket !== undefined) {
    const open = bracket === ']' ? '[' : '{';
    for (let i = at - 1, depth = 0; i >= 0; i--) {
      if (text[i] === bracket) depth++;
      else if (text[i] === open && depth-- === 0) {
        offset = i;
        message = `the "${open}" opened here is never closed with "${bracket}"`;
        break;
      }
    }
  } else if (error.code === 'DUPLICATE_KEY') {
    message = `field "${/^["']?([^"':\s]*)/.exec(text.slice(at))?.[1]}" appears twice (duplicated key)`;
  }
  return { file: path, line: lineOfOffset(text, offset), message };
}

/** Why a `.json` file is not JSON, at its line; undefined when it is (YAML, which JSON files must not lean on, is never asked). */
function notJson(path: string, text: string): Problem | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const found = jsonProblem(text);
    return {
      file: path,
      ...(found === undefined ? {} : { line: lineOfOffset(text, found.offset) }),
      message: `not valid JSON: ${found?.message ?? (error as Error).message}`,
    };
  }
}

/**
 * The line of every value by JSON pointer (a field's: its name's line), read once: what problems
 * need of a file, without keeping its parsed document (10,000 of them would take hundreds of MB).
 */
function linesOf(doc: Document, lines: LineCounter): ReadonlyMap<string, number> {
  const found = new Map<string, number>();
  const note = (pointer: string, node: unknown) => {
    const offset = (node as Node | null | undefined)?.range?.[0];
    if (offset !== undefined) found.set(pointer, lines.linePos(offset).line);
  };
  const walk = (node: unknown, pointer: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        const at = `${pointer}/${pointerToken(String(pair.key.value))}`;
        note(at, pair.key);
        walk(pair.value, at);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        note(`${pointer}/${index}`, item);
        walk(item, `${pointer}/${index}`);
      });
    }
  };
  note('', doc.contents);
  walk(doc.contents, '');
  return found;
}

/** Parses YAML or JSON text (a `.json` file as JSON only), keeping where every value is. */
export function parseSource(path: string, text: string): { file?: SourceFile; problems: Problem[] } {
  const refused = path.endsWith('.json') ? notJson(path, text) : undefined;
  if (refused !== undefined) return { problems: [refused] };
  const lines = new LineCounter();
  // JSON is YAML too: read so, its values keep their lines, and a key written twice is caught.
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) return { problems: doc.errors.map((e) => yamlProblem(path, text, e)) };
  const found = linesOf(doc, lines);
  const lineOf = (pointer: string) => {
    // The value's own line, or its nearest ancestor's.
    for (let at = pointer; ; at = at.slice(0, at.lastIndexOf('/'))) {
      const line = found.get(at);
      if (line !== undefined || at === '') return line;
    }
  };
  return { file: { path, value: doc.toJS(), lineOf }, problems: [] };
}

async function dataFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => DATA_FILE.test(name)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The project folder at `dir`; problems for files that do not parse. */
export async function readFolder(
  dir: string,
  shownAs: string = dir,
): Promise<{ folder: ProjectFolder; problems: Problem[] }> {
  const problems: Problem[] = [];
  const show = (name: string) => join(shownAs, name);
  const read = async (name: string) => {
    const parsed = parseSource(show(name), await readFile(join(dir, name), 'utf8'));
    problems.push(...parsed.problems);
    return parsed.file;
  };
  const projectFiles = (await dataFiles(dir)).filter((name) => /^project\.(ya?ml|json)$/.test(name));
  if (projectFiles.length > 1) {
    problems.push({
      file: show(projectFiles[1] as string),
      message: `a second project file beside ${projectFiles[0]}`,
    });
  }
  const project = projectFiles[0] === undefined ? undefined : await read(projectFiles[0]);
  const inFolder = async (folder: string) => {
    const files: SourceFile[] = [];
    for (const name of await dataFiles(join(dir, folder))) {
      const file = await read(join(folder, name));
      if (file !== undefined) files.push(file);
    }
    return files;
  };
  const flagd: { environment: string; file: SourceFile }[] = [];
  for (const name of await dataFiles(join(dir, 'flagd'))) {
    const file = await read(join('flagd', name));
    if (file !== undefined) flagd.push({ environment: basename(name, extname(name)), file });
  }
  return {
    folder: { dir, project, segments: await inFolder('segments'), flags: await inFolder('flags'), flagd },
    problems,
  };
}

/** Whether `dir` is a project folder (it has project.yaml), else a folder of them. */
export async function isProjectFolder(dir: string): Promise<boolean> {
  return (await dataFiles(dir)).some((name) => /^project\.(ya?ml|json)$/.test(name));
}

/** The project folders under `dir`: itself, or its sub-folders that hold a project.yaml. */
export async function projectFolders(dir: string): Promise<string[]> {
  if (await isProjectFolder(dir)) return [dir];
  const found: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.isDirectory() && (await isProjectFolder(join(dir, entry.name))))
      found.push(join(dir, entry.name));
  }
  return found;
}

/** Stable text of a file: same data, same bytes (no folding of long lines, the API's field order). */
export function render(path: string, value: Record<string, unknown>, server: string): string {
  const schema = `${server}${FILES_SCHEMA_PATH}`;
  if (path.endsWith('.json')) return `${JSON.stringify({ $schema: schema, ...value }, null, 2)}\n`;
  const doc = new Document(value);
  doc.commentBefore = ` yaml-language-server: $schema=${schema}`;
  return doc.toString({ lineWidth: 0 });
}

export interface WrittenResource {
  readonly key: string;
  readonly value: Record<string, unknown>;
}

const isLink = async (path: string) => {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
};

/**
 * Refuses a project folder that pull would write through a symbolic link (decision 1902): the
 * folder itself when `checkDir`, its project file, segments/ and flags/, and their files. pull
 * writes and deletes only inside the folder it was given, never where a link points.
 */
export async function refuseLinks(dir: string, checkDir: boolean): Promise<void> {
  const paths = checkDir ? [dir] : [];
  if (!checkDir || !(await isLink(dir))) {
    paths.push(...(await dataFiles(dir)).filter((n) => /^project\./.test(n)).map((n) => join(dir, n)));
    for (const folder of ['segments', 'flags']) {
      const at = join(dir, folder);
      paths.push(at);
      if (!(await isLink(at))) paths.push(...(await entries(at)).map((name) => join(at, name)));
    }
  }
  for (const path of paths) {
    if (await isLink(path)) {
      throw new Error(
        `${path} is a symbolic link; pull does not follow links (it writes and deletes files only inside ${dir}): replace it with a real folder or file`,
      );
    }
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Writes one folder of resources (segments/ or flags/): each into the file that already names
 * it (keeping its format) or <key>.yaml, and removes the files of resources that no longer exist.
 * It removes only files that are its own kind's (`isOwn`: they pass the files' schema); any other
 * file there is left as it is (decision 1902).
 */
export async function writeResources(
  dir: string,
  folder: 'segments' | 'flags',
  resources: readonly WrittenResource[],
  server: string,
  isOwn: (value: unknown) => boolean,
): Promise<void> {
  const at = join(dir, folder);
  await mkdir(at, { recursive: true });
  const existing = new Map<string, string>();
  const values = new Map<string, unknown>();
  const stale: string[] = [];
  for (const name of await dataFiles(at)) {
    const { file } = parseSource(name, await readFile(join(at, name), 'utf8'));
    if (file === undefined) continue;
    values.set(name, file.value);
    const key = (file.value as { key?: unknown } | undefined)?.key;
    if (typeof key === 'string' && !existing.has(key)) existing.set(key, name);
    else stale.push(name);
  }
  const wanted = new Set(resources.map((r) => r.key));
  for (const [key, name] of existing) if (!wanted.has(key)) stale.push(name);
  for (const name of stale) if (isOwn(values.get(name))) await rm(join(at, name));
  for (const resource of resources) {
    const name = existing.get(resource.key) ?? `${resource.key}.yaml`;
    await writeFile(join(at, name), render(name, resource.value, server));
  }
}

export async function writeProjectFile(
  dir: string,
  value: Record<string, unknown>,
  server: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const name = (await dataFiles(dir)).find((n) => /^project\.(ya?ml|json)$/.test(n)) ?? 'project.yaml';
  await writeFile(join(dir, name), render(name, value, server));
}

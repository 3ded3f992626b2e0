import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ApiCall, part } from './api-call.ts';

/** The documentation served as resources: the pages of docs/ (not its decisions), read from disk when asked. */
const DOCS = join(import.meta.dirname, '../../docs');
const DOC_PREFIX = 'flagstaff://docs/';
const FLAGS = /^flagstaff:\/\/projects\/([^/]+)\/flags(?:\/([^/]+))?$/;

export interface Resource {
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType: string;
}

export interface ResourceText {
  readonly uri: string;
  readonly mimeType: string;
  readonly text: string;
}

/** The documentation pages, each `flagstaff://docs/<file>.md` with its first heading as its name. */
export function documentation(): Resource[] {
  let files: string[];
  try {
    files = readdirSync(DOCS);
  } catch {
    return []; // an installation without the docs folder serves none
  }
  return files
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => {
      const heading = /^# (.+)$/m.exec(readFileSync(join(DOCS, file), 'utf8'))?.[1];
      return { uri: `${DOC_PREFIX}${file}`, name: heading ?? file, mimeType: 'text/markdown' };
    });
}

/** URI templates of what is read through the API: a project's flags, one flag. */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'flagstaff://projects/{project}/flags',
    name: "A project's flags",
    description: 'Every flag of the project (up to 1,000) with its state in each environment, as JSON.',
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'flagstaff://projects/{project}/flags/{flag}',
    name: 'A flag',
    description: 'One flag with its configuration in every environment, as JSON.',
    mimeType: 'application/json',
  },
] as const;

/** The resource at `uri`, or a thrown Error saying why not (unknown, refused by the API). */
export async function readResource(call: ApiCall, uri: string): Promise<ResourceText> {
  if (uri.startsWith(DOC_PREFIX)) {
    const file = uri.slice(DOC_PREFIX.length);
    const known = documentation().some((doc) => doc.uri === uri);
    if (!known) throw new Error(`no such documentation page: ${file}`);
    return { uri, mimeType: 'text/markdown', text: readFileSync(join(DOCS, file), 'utf8') };
  }
  const flags = FLAGS.exec(uri);
  if (flags === null) throw new Error(`unknown resource ${uri}`);
  const [, project, flag] = flags.map((piece) =>
    piece === undefined ? undefined : decodeURIComponent(piece),
  );
  const path =
    flag === undefined
      ? `/v1/projects/${part(project as string)}/flags?limit=1000`
      : `/v1/projects/${part(project as string)}/flags/${part(flag)}`;
  const answer = await call({ method: 'GET', path });
  if (answer.status >= 400) {
    const detail = (answer.body as { detail?: string } | undefined)?.detail ?? `HTTP ${answer.status}`;
    throw new Error(`refused (${answer.status}): ${detail}`);
  }
  return { uri, mimeType: 'application/json', text: JSON.stringify(answer.body, null, 2) };
}

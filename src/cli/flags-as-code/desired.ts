import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Variant } from '../../domain/flag.ts';
import { pointerToken } from '../../domain/json.ts';
import { schemaErrors } from '../../domain/schema-errors.ts';
import { projectFilesSchema } from '../../domain/schemas/project-files.ts';
import { importFlagd, mergeVariants } from '../../flagd/import-flagd.ts';
import type { Problem, ProjectFolder, SourceFile } from './files.ts';
import {
  type FlagEnvironmentState,
  type FlagState,
  flagEnvironmentState,
  flagState,
  type Json,
  type ProjectState,
  projectState,
  type SegmentState,
  segmentState,
} from './model.ts';

// What a project folder asks for, checked before anything is sent: the JSON Schema of the files,
// one file per key, and every segment, variant, environment and prerequisite a file names.

export interface Desired {
  readonly project: ProjectState;
  readonly projectFile: SourceFile;
  readonly segments: ReadonlyMap<string, { readonly state: SegmentState; readonly file: SourceFile }>;
  /** Each flag with only the environments its files manage. */
  readonly flags: ReadonlyMap<string, { readonly state: FlagState; readonly file: SourceFile }>;
}

/** What the server has that a folder may refer to without describing it. */
export interface ServerContext {
  readonly segments: ReadonlySet<string>;
  readonly flags: ReadonlyMap<string, FlagState>;
}

const ajv = new Ajv({ allErrors: true, strict: false });
(addFormats as unknown as (ajv: Ajv) => void)(ajv);
ajv.addSchema(projectFilesSchema(), 'files');
const validators = {
  project: ajv.getSchema('files#/definitions/project'),
  segment: ajv.getSchema('files#/definitions/segment'),
  flag: ajv.getSchema('files#/definitions/flag'),
};

/** Whether a value is a segment (or flag) file by the files' schema: the only files pull deletes (decision 1902). */
export const isResourceFile = (kind: 'segment' | 'flag', value: unknown): boolean =>
  validators[kind]?.(value) === true;

function schemaProblems(file: SourceFile, kind: keyof typeof validators): Problem[] {
  const validate = validators[kind];
  if (validate === undefined || validate(file.value)) return [];
  // As the API says it (domain/schema-errors.ts): one wrong condition is one problem, at its line.
  return schemaErrors(validate.errors ?? []).map(({ path, message }) => ({
    file: file.path,
    line: file.lineOf(path === '/' ? '' : path),
    field: path,
    message,
  }));
}

const problemAt = (file: SourceFile, field: string, message: string): Problem => ({
  file: file.path,
  line: file.lineOf(field),
  field,
  message,
});

// biome-ignore lint/suspicious/noExplicitAny: the schema has checked the shape
type Loose = any;

/** The segment keys a list of conditions names. */
const segmentRefs = (conditions: readonly Loose[] | undefined) =>
  (conditions ?? []).flatMap((c, i) =>
    c?.type === 'segment' ? [{ key: c.segment as string, index: i }] : [],
  );

/** Reads a folder into what it asks for, or the problems that stop it (then nothing is planned). */
export function desiredOf(
  folder: ProjectFolder,
  server: ServerContext,
): { desired?: Desired; problems: Problem[] } {
  const problems: Problem[] = [];
  const projectFile = folder.project;
  if (projectFile === undefined) {
    return {
      problems: [{ file: `${folder.dir}/project.yaml`, message: 'missing: every project folder has one' }],
    };
  }
  problems.push(...schemaProblems(projectFile, 'project'));
  const segmentFiles = folder.segments.filter((f) => {
    const found = schemaProblems(f, 'segment');
    problems.push(...found);
    return found.length === 0;
  });
  const flagFiles = folder.flags.filter((f) => {
    const found = schemaProblems(f, 'flag');
    problems.push(...found);
    return found.length === 0;
  });
  if (problems.length > 0) return { problems };

  const project = projectState(projectFile.value, (projectFile.value as Loose).environments);
  const environments = new Set<string>();
  (projectFile.value as Loose).environments.forEach((e: Loose, i: number) => {
    if (environments.has(e.key)) {
      problems.push(problemAt(projectFile, `/environments/${i}/key`, `environment "${e.key}" appears twice`));
    }
    environments.add(e.key);
  });

  const segments = byKey('segment', segmentFiles, segmentState, problems);
  const knownSegments = new Set([...server.segments, ...segments.keys()]);
  const checkSegment = (file: SourceFile, field: string, key: string) => {
    if (!knownSegments.has(key)) problems.push(problemAt(file, field, `unknown segment "${key}"`));
  };
  for (const { file } of segments.values()) {
    for (const { key, index } of segmentRefs((file.value as Loose).rules))
      checkSegment(file, `/rules/${index}/segment`, key);
  }

  const flags = byKey('flag', flagFiles, flagState, problems);
  mergeFlagdDocuments(folder, server, flags, problems);

  for (const { state, file } of flags.values()) {
    checkFlag(state, file, { environments, checkSegment, flags, server, problems });
  }
  if (problems.length > 0) return { problems };
  return { desired: { project, projectFile, segments, flags }, problems };
}

/** Each file's resource by its key; a key in two files is a problem named at the second. */
function byKey<State>(
  kind: 'segment' | 'flag',
  files: readonly SourceFile[],
  stateOf: (value: Loose) => State,
  problems: Problem[],
): Map<string, { state: State; file: SourceFile }> {
  const found = new Map<string, { state: State; file: SourceFile }>();
  for (const file of files) {
    const value = file.value as Loose;
    const other = found.get(value.key);
    if (other !== undefined) {
      problems.push(
        problemAt(file, '/key', `${kind} "${value.key}" is also in ${other.file.path} (duplicated key)`),
      );
      continue;
    }
    found.set(value.key, { state: stateOf(value), file });
  }
  return found;
}

interface FlagChecks {
  readonly environments: ReadonlySet<string>;
  readonly checkSegment: (file: SourceFile, field: string, key: string) => void;
  readonly flags: ReadonlyMap<string, { state: FlagState }>;
  readonly server: ServerContext;
  readonly problems: Problem[];
}

/** Every environment, segment, variant and prerequisite a flag names exists. */
function checkFlag(state: FlagState, file: SourceFile, checks: FlagChecks): void {
  const { problems } = checks;
  const variants = new Set(state.variants.map((v) => v.key as string));
  const variant = (field: string, key: unknown) => {
    if (typeof key === 'string' && !variants.has(key)) {
      problems.push(
        problemAt(
          file,
          field,
          `unknown variant "${key}" (the flag has ${[...variants].join(', ') || 'none'})`,
        ),
      );
    }
  };
  for (const [env, config] of Object.entries(state.environments)) {
    const at = `/environments/${env}`;
    if (!checks.environments.has(env)) {
      problems.push(
        problemAt(
          file,
          at,
          `unknown environment "${env}" (project.yaml has ${[...checks.environments].join(', ')})`,
        ),
      );
      continue;
    }
    variant(`${at}/offVariant`, config.offVariant);
    variant(`${at}/defaultVariant`, config.defaultVariant);
    ((config.defaultRollout as Loose)?.weights ?? []).forEach((w: Loose, i: number) => {
      variant(`${at}/defaultRollout/weights/${i}/variant`, w.variant);
    });
    config.targets.forEach((t: Loose, i: number) => {
      variant(`${at}/targets/${i}/variant`, t.variant);
    });
    config.rules.forEach((rule: Loose, i: number) => {
      const ruleAt = `${at}/rules/${i}`;
      variant(`${ruleAt}/serve/variant`, rule.serve?.variant);
      (rule.serve?.rollout?.weights ?? []).forEach((w: Loose, j: number) => {
        variant(`${ruleAt}/serve/rollout/weights/${j}/variant`, w.variant);
      });
      (rule.segments ?? []).forEach((key: string, j: number) => {
        checks.checkSegment(file, `${ruleAt}/segments/${j}`, key);
      });
      for (const { key, index } of segmentRefs(rule.conditions)) {
        checks.checkSegment(file, `${ruleAt}/conditions/${index}/segment`, key);
      }
    });
    ((config.prerequisites as Loose[] | undefined) ?? []).forEach((p, i) => {
      const required = checks.flags.get(p.flag)?.state ?? checks.server.flags.get(p.flag);
      if (required === undefined) {
        problems.push(problemAt(file, `${at}/prerequisites/${i}/flag`, `unknown flag "${p.flag}"`));
        return;
      }
      const known = new Set(required.variants.map((v) => v.key));
      p.variants.forEach((key: string, j: number) => {
        if (!known.has(key)) {
          problems.push(
            problemAt(
              file,
              `${at}/prerequisites/${i}/variants/${j}`,
              `flag "${p.flag}" has no variant "${key}"`,
            ),
          );
        }
      });
    });
  }
}

/**
 * A flagd document gives one environment's state of the flags it names, translated as the
 * server's flagd import translates it (docs/decisions/0504, 1741). The flag's own file, when
 * there is one, keeps the flag-wide fields; otherwise they are what an import would make them.
 */
function mergeFlagdDocuments(
  folder: ProjectFolder,
  server: ServerContext,
  flags: Merged,
  problems: Problem[],
): void {
  for (const { environment, file } of folder.flagd) {
    const imported = importFlagd(file.value);
    for (const error of imported.errors) problems.push(problemAt(file, error.path, error.message));
    for (const flag of imported.flags) {
      const problem = mergeFlagdFlag(flag, environment, file, server, flags);
      if (problem !== undefined) problems.push(problem);
    }
  }
}

type FlagdFlag = ReturnType<typeof importFlagd>['flags'][number];
type Merged = Map<string, { state: FlagState; file: SourceFile }>;

/** One flag of a flagd document merged into `flags`, or the problem that stops it. */
function mergeFlagdFlag(
  flag: FlagdFlag,
  environment: string,
  file: SourceFile,
  server: ServerContext,
  flags: Merged,
): Problem | undefined {
  const at = `/flags/${pointerToken(flag.key)}`;
  const own = flags.get(flag.key);
  const base = own?.state ?? server.flags.get(flag.key);
  if (own !== undefined && own.state.environments[environment] !== undefined) {
    return problemAt(
      file,
      at,
      `flag "${flag.key}" in "${environment}" is also given by ${own.file.path} (duplicated key)`,
    );
  }
  if (base !== undefined && base.type !== flag.type) {
    return problemAt(
      file,
      `${at}/variants`,
      `flag "${flag.key}" is a ${base.type} flag; these variants are ${flag.type} values`,
    );
  }
  const variants =
    base === undefined ? flag.variants : mergeVariants(base.variants as unknown as Variant[], flag.variants);
  if (
    own !== undefined &&
    JSON.stringify(flagState({ ...own.state, variants }).variants) !== JSON.stringify(own.state.variants)
  ) {
    return problemAt(
      file,
      `${at}/variants`,
      `the variants differ from those of ${own.file.path}: give them there`,
    );
  }
  const whole = flagState({
    ...(base ?? { key: flag.key, name: flag.key, description: '', tags: [] }),
    type: flag.type,
    variants,
    ...(own === undefined ? { metadata: flag.metadata, archived: false } : {}),
    environments: {},
  });
  const state: FlagEnvironmentState = flagEnvironmentState(flag.environment, whole.type, variants);
  const environments = { ...(own?.state.environments ?? {}), [environment]: state };
  flags.set(flag.key, {
    state: {
      ...whole,
      environments: Object.fromEntries(Object.entries(environments).sort(([a], [b]) => a.localeCompare(b))),
    },
    file: own?.file ?? file,
  });
  return undefined;
}

export type { Json };

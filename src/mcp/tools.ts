import { type TSchema, Type } from 'typebox';
import { CHANGE_REQUEST_STATUSES } from '../domain/change-request.ts';
import { FLAG_TYPES } from '../domain/flag.ts';
import { Closed, Key, OneOf } from '../domain/schemas/kit.ts';
import { TargetingRuleSchema } from '../domain/schemas/rules.ts';
import { type ApiAnswer, type ApiCall, part, queryOf } from './api-call.ts';

/** What a tool answers the assistant: text it reads, and whether the call failed. */
export interface ToolResult {
  readonly text: string;
  readonly isError?: boolean;
}

export interface ToolContext {
  readonly call: ApiCall;
  /** The dashboard's origin, for the links a tool hands back (a change request to approve). */
  readonly dashboard: string;
}

export interface Tool {
  readonly name: string;
  /** What an assistant reads to choose the tool: what it does, when to use it, what it answers. */
  readonly description: string;
  readonly input: TSchema;
  /** Writes nothing: MCP's readOnlyHint, so a client may call it without asking. */
  readonly readOnly: boolean;
  readonly run: (context: ToolContext, args: Record<string, unknown>) => Promise<ToolResult>;
}

const Project = Type.String({ description: 'The project key (or id), e.g. "default".' });
const Flag = Type.String({ description: 'The flag key, e.g. "new-checkout".' });
const Environment = Type.String({ description: 'The environment key, e.g. "development" or "production".' });

const text = (value: unknown) => JSON.stringify(value, null, 2);
const str = (value: unknown) => value as string;

/** A refusal as the API gave it: its status, code and detail (403 names the missing right, 404 the unknown thing). */
function refusal(answer: ApiAnswer): ToolResult {
  const problem = (answer.body ?? {}) as { code?: string; detail?: string; errors?: unknown };
  const detail = problem.detail ?? `HTTP ${answer.status}`;
  const errors = problem.errors === undefined ? '' : `\n${text(problem.errors)}`;
  return { text: `refused (${answer.status} ${problem.code ?? ''}): ${detail}${errors}`, isError: true };
}

/** The body of a success as JSON text, a refusal as its problem. */
async function answered(context: ToolContext, request: Parameters<ApiCall>[0]): Promise<ToolResult> {
  const answer = await context.call(request);
  return answer.status >= 400 ? refusal(answer) : { text: text(answer.body) };
}

/** Where a person approves a project's change requests. */
export const changeRequestLink = (dashboard: string, project: string, id: string) =>
  `${dashboard}/projects/${part(project)}/change-requests?request=${part(id)}`;

/**
 * A write's answer: 202 is the gate's (the environment requires approvals), so nothing changed
 * yet and the assistant is told where a person approves it.
 */
function written(context: ToolContext, project: string, answer: ApiAnswer): ToolResult {
  if (answer.status >= 400) return refusal(answer);
  if (answer.status === 202) {
    const id = (answer.body as { id: string }).id;
    return {
      text: `change request opened: ${changeRequestLink(context.dashboard, project, id)}\nNothing changed yet: the environment requires approval; the change is applied once the request is approved and applied.\n${text(answer.body)}`,
    };
  }
  return { text: text(answer.body) };
}

/** A code reference as GET /v1/projects/{p}/code-references answers it. */
interface StoredReference {
  readonly flag: string;
  readonly repository: string;
  readonly branch: string;
  readonly path: string;
  readonly line: number;
  readonly url: string | null;
}

const flagPath = (project: string, flag: string) => `/v1/projects/${part(project)}/flags/${part(flag)}`;

export const TOOLS: readonly Tool[] = [
  {
    name: 'list_flags',
    description:
      "List or search a project's feature flags: key, name, type, whether each is on in the environment, tags, archived and stale. Use it to find a flag by words in its key, name or description (`q`), by tag, or to see what a project has. Answers up to `limit` flags (default 50).",
    readOnly: true,
    input: Closed({
      project: Project,
      q: Type.Optional(Type.String({ description: 'Words to search in key, name and description.' })),
      tag: Type.Optional(Key),
      environment: Type.Optional(Environment),
      archived: Type.Optional(
        Type.Boolean({ description: 'true: only archived flags; false: only live ones.' }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    }),
    run: (context, args) =>
      answered(context, {
        method: 'GET',
        path: `/v1/projects/${part(str(args.project))}/flags${queryOf({
          q: args.q as string | undefined,
          tag: args.tag as string | undefined,
          environment: args.environment as string | undefined,
          archived: args.archived as boolean | undefined,
          limit: (args.limit as number | undefined) ?? 50,
        })}`,
      }),
  },
  {
    name: 'get_flag',
    description:
      'Read one flag whole: its variants and, for every environment, whether it is on, the variant served when off, the default variant or rollout, individual targets and targeting rules. Use it before changing a flag, or to answer what a flag serves where.',
    readOnly: true,
    input: Closed({ project: Project, flag: Flag }),
    run: (context, args) =>
      answered(context, { method: 'GET', path: flagPath(str(args.project), str(args.flag)) }),
  },
  {
    name: 'create_flag',
    description:
      'Create a feature flag. Only `key` is required; a boolean flag (variants "on" and "off") is made unless `type` and `variants` say otherwise. A new flag is off in every environment: switch it on with set_flag_targeting.',
    readOnly: false,
    input: Closed({
      project: Project,
      key: Key,
      name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      type: Type.Optional(OneOf(FLAG_TYPES)),
      variants: Type.Optional(
        Type.Array(Closed({ key: Key, value: Type.Unknown(), name: Type.Optional(Type.String()) }), {
          description: 'Each variant: its key and its value (of the flag type).',
        }),
      ),
      tags: Type.Optional(Type.Array(Key)),
    }),
    run: async (context, args) => {
      const { project, ...body } = args;
      const answer = await context.call({
        method: 'POST',
        path: `/v1/projects/${part(str(project))}/flags`,
        body,
      });
      return written(context, str(project), answer);
    },
  },
  {
    name: 'set_flag_targeting',
    description:
      'Change a flag\'s targeting in one environment: switch it on or off (`enabled`), change the variant served to everyone no rule matches (`defaultVariant`), and/or add a targeting rule at the end (`addRule`: conditions on context attributes or segments, and the variant it serves). In an environment that requires approvals nothing changes at once: the answer is "change request opened: <link>" for a person to approve.',
    readOnly: false,
    input: Closed({
      project: Project,
      flag: Flag,
      environment: Environment,
      enabled: Type.Optional(Type.Boolean({ description: 'true switches the flag on, false off.' })),
      defaultVariant: Type.Optional(Key),
      addRule: Type.Optional(TargetingRuleSchema),
    }),
    run: async (context, args) => {
      const project = str(args.project);
      const path = flagPath(project, str(args.flag));
      const environment = str(args.environment);
      const patch: Record<string, unknown> = {};
      if (args.enabled !== undefined) patch.enabled = args.enabled;
      if (args.defaultVariant !== undefined) patch.defaultVariant = args.defaultVariant;
      if (args.addRule !== undefined) {
        // A merge patch replaces the rules whole: the new one goes after the rules there now.
        const current = await context.call({ method: 'GET', path });
        if (current.status >= 400) return refusal(current);
        const flag = current.body as { environments: Record<string, { rules?: unknown[] }> };
        patch.rules = [...(flag.environments[environment]?.rules ?? []), args.addRule];
      }
      if (Object.keys(patch).length === 0) {
        return { text: 'Nothing to change: give enabled, defaultVariant or addRule.', isError: true };
      }
      const answer = await context.call({
        method: 'PATCH',
        path: `${path}${queryOf({ environment })}`,
        body: patch,
      });
      return written(context, project, answer);
    },
  },
  {
    name: 'explain_flag',
    description:
      'Evaluate a flag for a user or request context in an environment and explain the result: the value and variant served, the reason (default, targeting match, individual target, disabled, prerequisite failed, error) and the rule that decided. Use it to answer "what does user X get and why". Writes nothing and counts nothing.',
    readOnly: true,
    input: Closed({
      project: Project,
      flag: Flag,
      environment: Type.Optional(Environment),
      context: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'The evaluation context: `targetingKey` (the user id) and any attributes.',
        }),
      ),
    }),
    run: (context, args) =>
      answered(context, {
        method: 'POST',
        path: `${flagPath(str(args.project), str(args.flag))}/explain`,
        body: {
          ...(args.environment === undefined ? {} : { environment: args.environment }),
          attributes: args.context ?? {},
        },
      }),
  },
  {
    name: 'list_stale_flags',
    description:
      'List the flags of a project that are stale in an environment (not evaluated lately, or serving one variant to everyone), each with where code still names it (its code references, as `flagstaff refs` reported them: repository, branch, file and line). A stale flag with no code references is safe to remove; one with references needs those removed from the code first. Use it to clean up flag debt.',
    readOnly: true,
    input: Closed({ project: Project, environment: Type.Optional(Environment) }),
    run: async (context, args) => {
      const project = part(str(args.project));
      const stale = await context.call({
        method: 'GET',
        path: `/v1/projects/${project}/flags${queryOf({
          stale: true,
          environment: args.environment as string | undefined,
          limit: 200,
        })}`,
      });
      if (stale.status >= 400) return refusal(stale);
      const references = await context.call({
        method: 'GET',
        path: `/v1/projects/${project}/code-references`,
      });
      if (references.status >= 400) return refusal(references);
      const byFlag = Map.groupBy(references.body as StoredReference[], (reference) => reference.flag);
      const flags = (stale.body as { key: string; name: string; stale: unknown }[]).map((flag) => {
        const places = byFlag.get(flag.key) ?? [];
        return {
          key: flag.key,
          name: flag.name,
          stale: flag.stale,
          codeReferences: places.map((place) => ({
            repository: place.repository,
            branch: place.branch,
            at: `${place.path}:${place.line}`,
            url: place.url,
          })),
          ...(places.length === 0 ? { note: 'no code references: safe to remove' } : {}),
        };
      });
      return { text: text(flags) };
    },
  },
  {
    name: 'list_change_requests',
    description:
      "List a project's change requests (writes waiting for approval in guarded environments), newest first, optionally by status. Use it to see what awaits review.",
    readOnly: true,
    input: Closed({
      project: Project,
      status: Type.Optional(OneOf(CHANGE_REQUEST_STATUSES)),
    }),
    run: (context, args) =>
      answered(context, {
        method: 'GET',
        path: `/v1/projects/${part(str(args.project))}/change-requests${queryOf({
          status: args.status as string | undefined,
          limit: 50,
        })}`,
      }),
  },
  {
    name: 'get_change_request',
    description:
      'Show one change request: what it changes (the patch), in which environments, who asked, its approvals and status.',
    readOnly: true,
    input: Closed({ id: Type.String({ description: 'The change request id.' }) }),
    run: (context, args) =>
      answered(context, { method: 'GET', path: `/v1/change-requests/${part(str(args.id))}` }),
  },
  {
    name: 'get_experiment',
    description:
      'Read experiment status: without `experiment`, every experiment of the project (key, flag, state); with it, that experiment and its results (per metric and variant, the effect and whether it is significant, the sample-ratio check).',
    readOnly: true,
    input: Closed({ project: Project, experiment: Type.Optional(Key) }),
    run: async (context, args) => {
      const base = `/v1/projects/${part(str(args.project))}/experiments`;
      if (args.experiment === undefined) return answered(context, { method: 'GET', path: base });
      const path = `${base}/${part(str(args.experiment))}`;
      const experiment = await context.call({ method: 'GET', path });
      if (experiment.status >= 400) return refusal(experiment);
      const results = await context.call({ method: 'GET', path: `${path}/results` });
      return {
        text: text({ experiment: experiment.body, results: results.status < 400 ? results.body : null }),
      };
    },
  },
  {
    name: 'get_release_plan',
    description:
      "Read a flag's release plan in an environment: its state (draft, running, paused, done, rolled back), its milestones and where it stands, the guards' readings and its timeline.",
    readOnly: true,
    input: Closed({ project: Project, flag: Flag, environment: Environment }),
    run: (context, args) =>
      answered(context, {
        method: 'GET',
        path: `${flagPath(str(args.project), str(args.flag))}/environments/${part(str(args.environment))}/release-plan`,
      }),
  },
];

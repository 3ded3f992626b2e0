import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { type FieldError, notFound, validationFailed } from '../../domain/errors.ts';
import type { Project } from '../../domain/project.ts';
import { type ReleaseTemplate, resolveMilestone, shapeProblems } from '../../domain/release-plan.ts';
import type {
  CreateReleaseTemplateInput,
  ReleaseTemplatePatch,
} from '../../domain/schemas/release-schemas.ts';
import type {
  MetricRole,
  Page,
  PageRequest,
  ProjectStore,
  ReleaseRole,
  WithTransactions,
} from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { firstVersion, keyedInProject, takenIn } from '../core/keyed-resource.ts';
import { accessProject } from '../core/project-access.ts';
import { type AuditRoles, type VersionedKind, writeVersioned } from '../core/versioned-write.ts';
import { stepsOf } from './release-input.ts';

/** The store roles templates name: the project, its metrics (guards name them), the templates, the audit log. */
export type TemplateRoles = ProjectStore & MetricRole & ReleaseRole & AuditRoles;

const TEMPLATES: VersionedKind<ReleaseTemplate, TemplateRoles> = {
  ...keyedInProject('release_template'),
  insert: (tx, template) => tx.releases.insertTemplate(template),
  update: (tx, template, expectedVersion) => tx.releases.updateTemplate(template, expectedVersion),
  remove: (tx, template) => tx.releases.deleteTemplate(template.id),
};

/**
 * A project's release templates (docs/releases.md): reusable milestones and guards, in
 * percentages of the new variant, that a plan copies. Audited; they change no evaluation, so no gate.
 */
export class ReleaseTemplateService {
  readonly #store: WithTransactions<TemplateRoles>;
  readonly #clock: Clock;

  constructor(store: WithTransactions<TemplateRoles>, clock: Clock = systemClock) {
    this.#store = store;
    this.#clock = clock;
  }

  async list(actor: Actor, projectIdOrKey: string, page: PageRequest): Promise<Page<ReleaseTemplate>> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    return this.#store.releases.listTemplates(project.id, page);
  }

  async get(actor: Actor, projectIdOrKey: string, key: string): Promise<ReleaseTemplate> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'viewer');
    return this.#load(this.#store, project, key);
  }

  async create(
    actor: Actor,
    projectIdOrKey: string,
    input: CreateReleaseTemplateInput,
  ): Promise<ReleaseTemplate> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'editor');
    const template: ReleaseTemplate = {
      ...firstVersion('rtp', input, isoTime(this.#clock)),
      projectId: project.id,
      ...(await this.#checked(project, input)),
    };
    return this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, TEMPLATES, {
        create: async () => ({
          next: template,
          action: 'release_template.created',
          taken: takenIn(project, 'release template', template.key),
        }),
      }),
    );
  }

  async patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: ReleaseTemplatePatch,
    ifMatch: number | undefined,
  ): Promise<ReleaseTemplate> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'editor');
    const stored = await this.#load(this.#store, project, key);
    const steps = await this.#checked(
      project,
      {
        milestones: patch.milestones ?? [],
        guards: patch.guards,
        onBreach: patch.onBreach,
        guardInterval: patch.guardInterval,
      },
      patch.milestones === undefined ? stored : undefined,
    );
    const next: ReleaseTemplate = {
      ...stored,
      name: patch.name ?? stored.name,
      description: patch.description ?? stored.description,
      milestones: patch.milestones === undefined ? stored.milestones : steps.milestones,
      guards: patch.guards === undefined ? stored.guards : steps.guards,
      onBreach: patch.onBreach ?? stored.onBreach,
      guardIntervalSeconds:
        patch.guardInterval === undefined ? stored.guardIntervalSeconds : steps.guardIntervalSeconds,
      version: stored.version + 1,
      updatedAt: isoTime(this.#clock),
    };
    return this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, TEMPLATES, {
        load: () => this.#load(tx, project, key),
        ifMatch,
        change: async () => ({ next, action: 'release_template.updated' }),
      }),
    );
  }

  async delete(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    ifMatch: number | undefined,
  ): Promise<void> {
    const project = await accessProject(this.#store, actor, projectIdOrKey, 'editor');
    await this.#store.transaction((tx) =>
      writeVersioned(tx, actor, this.#clock, TEMPLATES, {
        load: () => this.#load(tx, project, key),
        ifMatch,
        change: async () => ({ next: null, action: 'release_template.deleted' }),
      }),
    );
  }

  /** The steps of a request, checked as a plan's would be (on a placeholder flag): refused field by field. */
  async #checked(
    project: Project,
    input: Parameters<typeof stepsOf>[0],
    keep?: Pick<ReleaseTemplate, 'milestones'>,
  ): Promise<ReturnType<typeof stepsOf>> {
    const problems: FieldError[] = [];
    const steps = stepsOf(input, problems);
    const milestones = (keep?.milestones ?? steps.milestones).map((m) =>
      resolveMilestone(m, 'control', 'treatment'),
    );
    problems.push(...shapeProblems({ ...steps, milestones }, 'control', undefined));
    for (const [index, guard] of steps.guards.entries()) {
      if (
        guard.kind === 'metric' &&
        (await this.#store.metrics.findMetricByKey(project.id, guard.metric)) === undefined
      ) {
        problems.push({
          path: `/guards/${index}/metric`,
          message: `names no metric of project "${project.key}"`,
        });
      }
    }
    if (problems.length > 0) throw validationFailed('The release template is not valid.', problems);
    return steps;
  }

  async #load(tx: TemplateRoles, project: Project, key: string): Promise<ReleaseTemplate> {
    const template = await tx.releases.findTemplateByKey(project.id, key);
    if (template === undefined) throw notFound(`No release template "${key}" in project "${project.key}".`);
    return template;
  }
}

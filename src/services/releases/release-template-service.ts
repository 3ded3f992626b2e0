import { type Clock, isoTime, systemClock } from '../../domain/clock.ts';
import { type FieldError, validationFailed } from '../../domain/errors.ts';
import type { Project } from '../../domain/project.ts';
import { type ReleaseTemplate, resolveMilestone, shapeProblems } from '../../domain/release-plan.ts';
import type {
  CreateReleaseTemplateInput,
  ReleaseTemplatePatch,
} from '../../domain/schemas/release-schemas.ts';
import type { MetricRole, ProjectStore, ReleaseRole, WithTransactions } from '../../storage/store.ts';
import type { Actor } from '../core/actor.ts';
import { firstVersion } from '../core/keyed-resource.ts';
import { type ListedKind, ListedService } from '../core/project-keyed-resources.ts';
import type { AuditRoles } from '../core/versioned-write.ts';
import { stepsOf } from './release-input.ts';

/** The store roles templates name: the project, its metrics (guards name them), the templates, the audit log. */
export type TemplateRoles = ProjectStore & MetricRole & ReleaseRole & AuditRoles;

/** Templates as a project-keyed resource: audited as `release_template.created`, `.updated`, `.deleted`. */
const TEMPLATES: ListedKind<ReleaseTemplate, TemplateRoles> = {
  type: 'release_template',
  rows: (tx) => tx.releases.templates,
};

/**
 * A project's release templates (docs/releases.md): reusable milestones and guards, in
 * percentages of the new variant, that a plan copies. Audited; they change no evaluation, so no gate.
 */
export class ReleaseTemplateService extends ListedService<ReleaseTemplate, TemplateRoles> {
  constructor(store: WithTransactions<TemplateRoles>, clock: Clock = systemClock) {
    super(store, clock, TEMPLATES);
  }

  async create(
    actor: Actor,
    projectIdOrKey: string,
    input: CreateReleaseTemplateInput,
  ): Promise<ReleaseTemplate> {
    const project = await this.resources.project(actor, projectIdOrKey, 'editor');
    return this.resources.create(actor, project, {
      ...firstVersion('rtp', input, isoTime(this.clock)),
      projectId: project.id,
      ...(await this.#checked(project, input)),
    });
  }

  async patch(
    actor: Actor,
    projectIdOrKey: string,
    key: string,
    patch: ReleaseTemplatePatch,
    ifMatch: number | undefined,
  ): Promise<ReleaseTemplate> {
    const project = await this.resources.project(actor, projectIdOrKey, 'editor');
    const stored = await this.resources.find(this.store, project, key);
    const next = await this.#patched(project, stored, patch);
    return this.resources.update(this.target(actor, project, key, ifMatch, 'changed'), async () => next);
  }

  /** A merge patch applied to the stored template, its steps checked as a new template's. */
  async #patched(
    project: Project,
    stored: ReleaseTemplate,
    patch: ReleaseTemplatePatch,
  ): Promise<ReleaseTemplate> {
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
    return {
      ...stored,
      name: patch.name ?? stored.name,
      description: patch.description ?? stored.description,
      milestones: patch.milestones === undefined ? stored.milestones : steps.milestones,
      guards: patch.guards === undefined ? stored.guards : steps.guards,
      onBreach: patch.onBreach ?? stored.onBreach,
      guardIntervalSeconds:
        patch.guardInterval === undefined ? stored.guardIntervalSeconds : steps.guardIntervalSeconds,
      version: stored.version + 1,
      updatedAt: isoTime(this.clock),
    };
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
        (await this.store.metrics.findByKey(project.id, guard.metric)) === undefined
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
}

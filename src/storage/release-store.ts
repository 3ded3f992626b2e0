import type { ReleasePlan, ReleaseStatus, ReleaseTemplate } from '../domain/release-plan.ts';
import type { ProjectKeyedStore } from './project-keyed-store.ts';

/** Release templates and plans (docs/releases.md): versioned rows, written with their audit event in its transaction. */
export interface ReleaseStore {
  /** A project's templates, keyed in it like metrics. */
  readonly templates: ProjectKeyedStore<ReleaseTemplate>;

  /** The one plan of a flag in an environment; `forUpdate` locks it until the transaction ends. */
  findPlan(
    flagId: string,
    environment: string,
    options?: { forUpdate?: boolean },
  ): Promise<ReleasePlan | undefined>;
  findPlanById(id: string, options?: { forUpdate?: boolean }): Promise<ReleasePlan | undefined>;
  /** Every plan of these statuses, of every project: what a node's guard checker watches. */
  plansWithStatus(statuses: readonly ReleaseStatus[]): Promise<readonly ReleasePlan[]>;
  /** Throws UniqueViolation when the flag has a plan in the environment already. */
  insertPlan(plan: ReleasePlan): Promise<void>;
  /** Writes it unless the stored version is no longer `expectedVersion` (then false): of two nodes moving one plan, one wins. */
  updatePlan(plan: ReleasePlan, expectedVersion: number): Promise<boolean>;
  deletePlan(id: string): Promise<boolean>;
}

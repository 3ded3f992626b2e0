import type { KeyedResource, ProjectResource } from './keyed-resource.ts';

export type Project = KeyedResource;

export interface Environment extends ProjectResource {
  /** Changes here ask for confirmation in the dashboard (decision 0604). */
  readonly protected: boolean;
  /** Approvals a flag change here needs before it is written (docs/product.md §10); set by the services, 0 when absent. */
  readonly requiredApprovals?: number;
}

/** The environment a request means when it names none (docs/product.md §4, §6). */
export const DEFAULT_ENVIRONMENT = 'production';

/** Whether a new environment is protected when its creator does not say: production is (decision 0604). */
export const protectedByDefault = (key: string): boolean => key === DEFAULT_ENVIRONMENT;

/** Environments a project gets when its creator names none (docs/product.md §2). */
export const DEFAULT_ENVIRONMENTS = [
  { key: 'development', name: 'Development' },
  { key: DEFAULT_ENVIRONMENT, name: 'Production' },
] as const;

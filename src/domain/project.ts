export interface Project {
  readonly id: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface Environment {
  readonly id: string;
  readonly projectId: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  /** Changes here ask for confirmation in the dashboard (decision 0604). */
  readonly protected: boolean;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The environment a request means when it names none (SPEC §4, §6). */
export const DEFAULT_ENVIRONMENT = 'production';

/** Whether a new environment is protected when its creator does not say: production is (decision 0604). */
export const protectedByDefault = (key: string): boolean => key === DEFAULT_ENVIRONMENT;

/** Environments a project gets when its creator names none (SPEC §2). */
export const DEFAULT_ENVIRONMENTS = [
  { key: 'development', name: 'Development' },
  { key: DEFAULT_ENVIRONMENT, name: 'Production' },
] as const;

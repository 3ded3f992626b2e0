import { createContext, useContext } from 'react';
import type { Environment, Project } from './api.ts';

export interface ProjectValue {
  readonly project: Project;
  readonly environments: readonly Environment[];
  readonly reloadEnvironments: () => void;
}

/** The project a page is in: set by the app around project pages. */
export const ProjectContext = createContext<ProjectValue | null>(null);

/** The project of the page, or null on organisation pages. */
export const useOptionalProject = (): ProjectValue | null => useContext(ProjectContext);

export function useProject(): ProjectValue {
  const value = useContext(ProjectContext);
  if (!value) throw new Error('useProject outside a project page');
  return value;
}

/** An environment of the page's project by its name, as people know it: its key when there is none. */
export function useEnvironmentNames(): (key: string) => string {
  const { environments } = useProject();
  return (key) => environments.find((e) => e.key === key)?.name ?? key;
}

import type { Principal, Role } from '../domain/api-key.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Project } from '../domain/project.ts';
import type { ProjectStore } from '../storage/store.ts';
import { authorize } from './access.ts';

/**
 * Finds a project by id or key and checks the principal may act in it with `role`.
 * A key bound to another project gets `forbidden` whether or not the project exists,
 * so probing reveals nothing.
 */
export async function accessProject(
  store: ProjectStore,
  principal: Principal,
  idOrKey: string,
  role: Role,
  environment?: string,
): Promise<Project> {
  const project = await store.findProject(idOrKey);
  if (principal.projectId !== null && project?.id !== principal.projectId) {
    throw new DomainError('forbidden', 'This API key has no access to this project.');
  }
  if (project === undefined) throw notFound(`No project "${idOrKey}".`);
  authorize(principal, project.id, role, environment);
  return project;
}

/** Refuses a request whose `If-Match` names another version than the stored one. */
export function checkIfMatch(ifMatch: number | undefined, version: number): void {
  if (ifMatch !== undefined && ifMatch !== version) {
    throw new DomainError(
      'precondition_failed',
      `If-Match names version ${ifMatch}, but the resource is at version ${version}.`,
    );
  }
}

/** The error for an update that lost a race with another writer of the same resource. */
export const changedMeanwhile = (resource: string) =>
  new DomainError(
    'precondition_failed',
    `The ${resource} changed while this request ran; read it again and retry.`,
  );

export const now = () => new Date().toISOString();

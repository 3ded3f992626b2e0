/** What a flagd sync client asks for: an environment of a project, with the key that may read it. */
export interface SyncSelector {
  readonly project: string;
  readonly environment: string;
  readonly secret: string;
}

/**
 * `<project key or id>/<environment key>#<sync credential>` (docs/decisions/1771). flagd's
 * providers send nothing but the selector, so it carries the credential. Undefined when malformed.
 */
export function parseSyncSelector(selector: string): SyncSelector | undefined {
  const hash = selector.indexOf('#');
  if (hash === -1) return undefined;
  const scope = selector.slice(0, hash);
  const secret = selector.slice(hash + 1);
  const slash = scope.indexOf('/');
  if (slash === -1) return undefined;
  const project = scope.slice(0, slash);
  const environment = scope.slice(slash + 1);
  if (project === '' || environment === '' || environment.includes('/') || secret === '') return undefined;
  return { project, environment, secret };
}

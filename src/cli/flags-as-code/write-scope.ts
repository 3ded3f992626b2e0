import type { PlannedResource, PlannedWrite } from './plan.ts';

// The only requests apply sends: writes of one project's own flags, segments and environments,
// and the project itself (decision 1901). Plans are made here, not read from files, so a request
// outside these is a fault in the CLI; it is refused rather than sent.

const enc = encodeURIComponent;
const ID = '[^/?#]+';
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The requests a resource of `kind` in `project` may make: method and a pattern of its path. */
function allowed(project: string, kind: PlannedResource['kind']): readonly [string, RegExp][] {
  const base = literal(`/v1/projects/${enc(project)}`);
  switch (kind) {
    case 'project':
      return [
        ['POST', /^\/v1\/projects$/],
        ['PATCH', new RegExp(`^${base}$`)],
      ];
    case 'environment':
      return [
        ['POST', new RegExp(`^${base}/environments$`)],
        ['PATCH', new RegExp(`^${base}/environments/${ID}$`)],
        ['DELETE', new RegExp(`^${base}/environments/${ID}$`)],
      ];
    case 'segment':
      return [
        ['POST', new RegExp(`^${base}/segments$`)],
        ['PATCH', new RegExp(`^/v1/segments/${ID}$`)],
        ['DELETE', new RegExp(`^/v1/segments/${ID}$`)],
      ];
    case 'flag':
      return [
        ['POST', new RegExp(`^${base}/flags$`)],
        ['PATCH', new RegExp(`^/v1/flags/${ID}(\\?environment=${ID})?$`)],
        ['DELETE', new RegExp(`^/v1/flags/${ID}$`)],
      ];
  }
}

/** Why `write` is not one of `project`'s own writes of a resource of `kind`; undefined when it is. */
export function outsideProject(
  project: string,
  kind: PlannedResource['kind'],
  write: PlannedWrite,
): string | undefined {
  const path = write.path.replace('{id}', 'id');
  // fetch resolves `.` and `..` (also percent-encoded) before sending: `/v1/flags/..` is not a flag.
  const dotted = (path.split(/[?#]/)[0] ?? '').split('/').some((part) => /^(\.|%2e){1,2}$/i.test(part));
  const fits =
    !dotted &&
    allowed(project, kind).some(([method, pattern]) => method === write.method && pattern.test(path));
  const creates = write.method === 'POST' && path === '/v1/projects';
  const body = write.body as { key?: unknown } | undefined;
  if (fits && (!creates || body?.key === project)) return undefined;
  return `refused by the CLI: ${write.method} ${write.path} is not a write of project ${project}'s own ${kind}s`;
}

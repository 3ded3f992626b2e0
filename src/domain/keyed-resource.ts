/** What every keyed resource has: an id, a key people type, a name, and a version for If-Match. */
export interface KeyedResource {
  readonly id: string;
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A keyed resource that lives in one project (its key is unique there). */
export interface ProjectResource extends KeyedResource {
  readonly projectId: string;
}

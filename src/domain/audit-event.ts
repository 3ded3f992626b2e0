export interface AuditEvent {
  readonly id: string;
  /** The project whose log holds the event, null for the organisation's; known once stored. */
  readonly projectId?: string | null;
  readonly at: string;
  readonly actor: {
    readonly type: 'api_key' | 'user' | 'release_plan';
    readonly id: string;
    readonly name: string;
  };
  /** `<resource>.<verb>`, e.g. `flag.updated`. */
  readonly action: string;
  readonly resource: {
    readonly type: string;
    readonly id: string;
    readonly key: string | null;
    /** A change request's: the flag or segment it would change, so their history lists it. */
    readonly subjectId?: string;
  };
  readonly environment?: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly requestId: string;
  /** What else the event says, e.g. which scheduled change made a write and how late. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Which audit events a list asks for: every field it names must match. */
export interface AuditFilter {
  readonly resourceType?: string | undefined;
  /** One resource's events: any of these ids (a key resolves to its flag's and segment's ids). */
  readonly resourceId?: string | readonly string[] | undefined;
  /** With `resourceId`: also the events of change requests that would change that resource. */
  readonly withChangeRequests?: boolean | undefined;
  readonly action?: string | undefined;
  /** The id of the API key or account that acted. */
  readonly actorId?: string | undefined;
}

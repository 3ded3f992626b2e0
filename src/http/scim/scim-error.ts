/** The schema URNs of RFC 7643 and RFC 7644 this server speaks. */
export const SCIM = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  list: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
} as const;

/** What every SCIM answer is, errors included. */
export const SCIM_TYPE = 'application/scim+json; charset=utf-8';

/** A SCIM request the server cannot take, with RFC 7644's `scimType` (§3.12). */
export class ScimError extends Error {
  readonly status: number;
  readonly scimType: string | undefined;
  constructor(status: number, detail: string, scimType?: string) {
    super(detail);
    this.status = status;
    this.scimType = scimType;
  }
}

/** 400 invalidValue: an attribute's value is not one the server takes. */
export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');

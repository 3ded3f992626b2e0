// The MCP server's only door to Flagstaff: one API request as the caller's key. Over stdio it is
// HTTP to a running server; at /mcp it is the node's own routes, injected in process. Either way
// the request passes the same admission, role, gate and audit as any other (decision 1990).

/** What the API answered: its status and parsed JSON body (a problem+json body on an error). */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path from the origin, with its query: `/v1/projects/default/flags?q=checkout`. */
  readonly path: string;
  readonly body?: unknown;
}

/** Makes one API request as the caller's key; answers every status, throws only when the server is unreachable. */
export type ApiCall = (request: ApiRequest) => Promise<ApiAnswer>;

/** A path part as sent: keys and ids are URL-safe, but a caller's text is not to be trusted. */
export const part = (value: string): string => encodeURIComponent(value);

/** `?a=1&b=x` of the defined values, or ''. */
export function queryOf(values: Readonly<Record<string, string | number | boolean | undefined>>): string {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return '';
  return `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)])).toString()}`;
}

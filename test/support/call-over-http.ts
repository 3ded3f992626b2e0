import { ADMIN_KEY } from './server.ts';

/**
 * A request over real HTTP to a listening app at `url` (where a suite needs the socket, not
 * inject): JSON in with the API key, the status and parsed JSON out.
 */
export async function callOverHttp(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  key = ADMIN_KEY,
) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
}

import { ADMIN_KEY } from './server.ts';

/** A test server's or a dashboard server's `call`: both send an API key and a JSON body. */
interface CallsTheApi {
  call(
    method: string,
    path: string,
    options: { readonly key: string; readonly body?: unknown },
  ): Promise<{ readonly status: number; readonly body: unknown }>;
}

/**
 * A request of a test's setup, with the admin key: its answer's body, or an error naming the
 * request and what the API said. A refused setup is a broken test, not what the test is about.
 */
export async function callAsAdmin(
  server: CallsTheApi,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
): Promise<any> {
  const res = await server.call(method, path, { key: ADMIN_KEY, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

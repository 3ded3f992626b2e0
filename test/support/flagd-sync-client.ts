import {
  credentials,
  type GrpcObject,
  loadPackageDefinition,
  Metadata,
  type ServiceClientConstructor,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

// A raw gRPC client of flagd's FlagSyncService, for tests that read what the sync server sends
// (exact status codes, every pushed configuration) rather than what a provider makes of it.

const PROTO = new URL('../../src/openfeature/flagd/sync-proto/flagd/sync/v1/sync.proto', import.meta.url)
  .pathname;

/**
 * A FlagSyncService client of 127.0.0.1:`port`. grpc-js clients are untyped: `Calls` declares the
 * methods the test uses.
 */
export function flagSyncClient<Calls>(port: number): Calls & { close(): void } {
  const sync = (loadPackageDefinition(loadSync(PROTO, { defaults: true })).flagd as GrpcObject)
    .sync as GrpcObject;
  const Client = (sync.v1 as GrpcObject).FlagSyncService as ServiceClientConstructor;
  return new Client(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as Calls & {
    close(): void;
  };
}

/** The call metadata that names a selector (`flagd-selector`), as flagd providers send it. */
export function selectorMetadata(selector: string): Metadata {
  const metadata = new Metadata();
  metadata.set('flagd-selector', selector);
  return metadata;
}

/**
 * A key's flagd sync selector for one environment, asked of the API as Settings → API keys
 * does (`call` is a test server's or node's, with an admin key).
 */
export async function syncSelectorOf(
  call: (method: string, path: string) => Promise<{ status: number; body: unknown }>,
  keyId: string,
  environment: string,
  project?: string,
): Promise<string> {
  const query = project === undefined ? '' : `?project=${encodeURIComponent(project)}`;
  const reply = await call('GET', `/v1/api-keys/${keyId}/flagd-sync${query}`);
  const found = (reply.body as { environment: string; selector: string }[]).find(
    (s) => s.environment === environment,
  );
  if (reply.status !== 200 || found === undefined) {
    throw new Error(`no selector for ${environment}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return found.selector;
}

/** A FlagSyncService client for unary calls, reading exact status codes (0: OK). */
export function fetchAllClient(port: number) {
  const client = flagSyncClient<{
    fetchAllFlags(
      request: object,
      metadata: Metadata,
      callback: (error: { code: number } | null, reply: { flagConfiguration: string }) => void,
    ): void;
  }>(port);
  const fetchAll = (selector: string) =>
    new Promise<{ code: number; flags?: string }>((resolve) => {
      client.fetchAllFlags({}, selectorMetadata(selector), (error, reply) =>
        resolve(error ? { code: error.code } : { code: 0, flags: reply.flagConfiguration }),
      );
    });
  return { fetchAll, close: () => client.close() };
}

/** A raw SyncFlags stream: every flag configuration pushed, parsed. */
export function openSyncStream(port: number, selector: string) {
  const client = flagSyncClient<{
    syncFlags(request: object, metadata: Metadata): NodeJS.EventEmitter & { cancel(): void };
  }>(port);
  const call = client.syncFlags({}, selectorMetadata(selector));
  const payloads: { flags: Record<string, { defaultVariant: string; state: string }> }[] = [];
  call.on('data', (data: { flagConfiguration: string }) => payloads.push(JSON.parse(data.flagConfiguration)));
  call.on('error', () => {});
  return {
    payloads,
    close: () => {
      call.cancel();
      client.close();
    },
  };
}

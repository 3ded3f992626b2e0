import { fileURLToPath } from 'node:url';
import {
  type GrpcObject,
  loadPackageDefinition,
  type Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceClientConstructor,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import type { Principal } from '../domain/api-key.ts';
import { systemClock } from '../domain/clock.ts';
import { DomainError, ERROR_CATALOGUE } from '../domain/errors.ts';
import { syncCredentialKeyId, syncScope } from '../plane/sync-credential.ts';
import {
  FAILED_AUTHENTICATION_LIMITS,
  FailedAuthentications,
} from '../services/access/failed-authentications.ts';
import { hashSecret } from '../services/core/secrets.ts';
import type { Services } from '../services/services.ts';
import { parseSyncSelector } from './flagd/sync-selector.ts';

const PROTO = fileURLToPath(new URL('./flagd/sync-proto/flagd/sync/v1/sync.proto', import.meta.url));
const SELECTOR_HEADER = 'flagd-selector';

interface SyncRequest {
  readonly providerId?: string;
  readonly selector?: string;
}

/** A gRPC error as grpc-js sends it: a status code and details for the client. */
class SyncRefusal extends Error {
  readonly code: status;
  readonly details: string;
  constructor(code: status, details: string) {
    super(details);
    this.code = code;
    this.details = details;
  }
}

interface SyncSource {
  readonly principal: Principal;
  readonly projectId: string;
  readonly environment: string;
}

export interface SyncServerLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface FlagdSyncServer {
  /** The port it listens on (useful when asked for 0). */
  readonly port: number;
  /** SyncFlags streams open now. */
  openStreams(): number;
  close(): Promise<void>;
}

/** gRPC's status for each HTTP status of the error catalogue (src/domain/errors.ts). */
const GRPC_STATUS: Readonly<Record<number, status>> = {
  400: status.INVALID_ARGUMENT,
  401: status.UNAUTHENTICATED,
  403: status.PERMISSION_DENIED,
  404: status.NOT_FOUND,
  409: status.ALREADY_EXISTS,
  412: status.FAILED_PRECONDITION,
  429: status.RESOURCE_EXHAUSTED,
  503: status.UNAVAILABLE,
};

/** The client's address from grpc-js' peer (`127.0.0.1:5000`, `[::1]:5000`, `ipv4:…`). */
function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[(.*)\]:\d+$/.exec(bare);
  if (bracketed?.[1] !== undefined) return bracketed[1];
  return bare.replace(/:\d+$/, '');
}

/** What went wrong, for the client; never the selector, which holds the sync credential. */
function refusalOf(error: unknown): SyncRefusal {
  if (error instanceof SyncRefusal) return error;
  const code = error instanceof DomainError ? GRPC_STATUS[ERROR_CATALOGUE[error.code].status] : undefined;
  if (code !== undefined) return new SyncRefusal(code, (error as DomainError).message);
  return new SyncRefusal(status.INTERNAL, 'Something went wrong on our side.');
}

/**
 * flagd's gRPC sync protocol (`flagd.sync.v1.FlagSyncService`, docs/product.md §9), so flagd's in-process
 * providers evaluate locally with Flagstaff as their source. The payload is the environment's
 * flagd export; every change that alters it is pushed to its streams.
 */
export async function startFlagdSyncServer(
  services: Services,
  options: {
    port: number;
    host: string;
    log: SyncServerLog;
    /** The HTTP API's failure budgets per address, so a guesser gets one budget across both; default its own. */
    failedAuthentications?: FailedAuthentications;
  },
): Promise<FlagdSyncServer> {
  const definition = loadSync(PROTO, { keepCase: false, longs: String, enums: String, defaults: true });
  const sync = (loadPackageDefinition(definition).flagd as GrpcObject).sync as GrpcObject;
  const service = ((sync.v1 as GrpcObject).FlagSyncService as ServiceClientConstructor).service;
  const streams = new Set<ServerWritableStream<SyncRequest, unknown>>();
  /** One export per environment and revision, shared by every stream of it. */
  const payloads = new Map<string, { revision: number; payload: Promise<string> }>();

  const payloadOf = (source: SyncSource): Promise<string> => {
    const key = `${source.projectId}/${source.environment}`;
    const revision = services.changes.revisionOf(source.projectId) ?? 0;
    const cached = payloads.get(key);
    if (cached !== undefined && cached.revision === revision) return cached.payload;
    const payload = services.flagd
      .exportEnvironment(source.projectId, source.environment)
      .then(({ document }) => JSON.stringify(document));
    payloads.set(key, { revision, payload });
    payload.catch(() => {
      if (payloads.get(key)?.payload === payload) payloads.delete(key);
    });
    return payload;
  };

  /**
   * Why a selector's credential was refused. An API key's own secret is refused too, with a
   * warning naming the key (never the secret): providers copy the selector into flag metadata,
   * where applications log it (docs/decisions/1771).
   */
  const refusedCredential = async (secret: string): Promise<SyncRefusal> => {
    const apiKey =
      syncCredentialKeyId(secret) === undefined ? await services.apiKeys.authenticate(secret) : undefined;
    if (apiKey === undefined) {
      return new SyncRefusal(
        status.UNAUTHENTICATED,
        'The sync credential in the selector is unknown, revoked, expired or for another environment.',
      );
    }
    options.log.warn(
      { keyId: apiKey.id },
      'flagd sync refused an API key in a selector; the key should be revoked and its sync credential used',
    );
    return new SyncRefusal(
      status.UNAUTHENTICATED,
      "A selector carries a sync credential, not an API key: flagd providers copy the selector into flag metadata. Use the key's selector from Settings → API keys (or GET /v1/api-keys/{id}/flagd-sync).",
    );
  };

  const failures =
    options.failedAuthentications ?? new FailedAuthentications(FAILED_AUTHENTICATION_LIMITS, systemClock);
  const tooManyFailures = new SyncRefusal(
    status.RESOURCE_EXHAUSTED,
    'Too many failed authentications from this address; retry later.',
  );
  /** UNAUTHENTICATED, or RESOURCE_EXHAUSTED once the address has used up its failure budget (as HTTP's 429). */
  const failed = (address: string, details: string) =>
    failures.failed(address).allowed ? new SyncRefusal(status.UNAUTHENTICATED, details) : tooManyFailures;

  const sourceOf = async (call: { metadata: Metadata; request: SyncRequest; getPeer(): string }) => {
    const address = peerAddress(call.getPeer());
    const header = call.metadata.get(SELECTOR_HEADER)[0];
    const selector = typeof header === 'string' && header !== '' ? header : (call.request.selector ?? '');
    const parsed = parseSyncSelector(selector);
    const credential = parsed === undefined ? '' : hashSecret(parsed.secret);
    if (failures.refuses(address, credential) !== undefined) throw tooManyFailures;
    if (parsed === undefined) {
      throw failed(
        address,
        'Send the selector "<project>/<environment>#<sync credential>" (flagd-selector header or request field); the key\'s selectors are in Settings → API keys.',
      );
    }
    const scope = syncScope(parsed.project, parsed.environment);
    const principal = await services.apiKeys.authenticateSyncCredential(parsed.secret, scope);
    if (principal === undefined) throw failed(address, (await refusedCredential(parsed.secret)).details);
    failures.succeeded(credential);
    // The same checks as an evaluation request's: the key's project and environments, and an environment that exists.
    const { projectId } = await services.evaluation.target(
      { principal, requestId: 'flagd-sync' },
      { project: parsed.project, environment: parsed.environment },
    );
    return { principal, projectId, environment: parsed.environment };
  };

  const syncFlags = async (call: ServerWritableStream<SyncRequest, unknown>) => {
    let source: SyncSource;
    try {
      source = await sourceOf(call);
    } catch (error) {
      const refusal = refusalOf(error);
      options.log.info({ code: status[refusal.code] }, 'flagd sync refused');
      call.emit('error', { code: refusal.code, details: refusal.details });
      return;
    }
    streams.add(call);
    let sent = '';
    /** Pushes are chained, so a slow export never overtakes a newer one. */
    let queue: Promise<void> = Promise.resolve();
    const push = () => {
      queue = queue
        .then(async () => {
          if (call.cancelled || !streams.has(call)) return;
          const payload = await payloadOf(source);
          if (payload === sent) return;
          sent = payload;
          call.write({ flagConfiguration: payload });
        })
        .catch((error) => options.log.warn({ err: error }, 'flagd sync could not export the environment'));
    };
    const end = (code: status, details: string) => {
      if (!streams.delete(call)) return;
      cleanup();
      call.emit('error', { code, details });
    };
    const unsubscribe = services.changes.subscribe(source.projectId, push);
    const unrevoke = services.revocations.subscribe(source.principal.id, () =>
      end(status.UNAUTHENTICATED, 'The API key was revoked.'),
    );
    const cleanup = () => {
      unsubscribe();
      unrevoke();
    };
    call.on('cancelled', () => {
      if (streams.delete(call)) cleanup();
    });
    call.on('close', () => {
      if (streams.delete(call)) cleanup();
    });
    push();
  };

  const fetchAllFlags = async (
    call: ServerUnaryCall<SyncRequest, unknown>,
    callback: sendUnaryData<unknown>,
  ) => {
    try {
      const source = await sourceOf(call);
      callback(null, { flagConfiguration: await payloadOf(source) });
    } catch (error) {
      const refusal = refusalOf(error);
      callback({ code: refusal.code, details: refusal.details });
    }
  };

  const getMetadata = (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    // Deprecated in the protocol; nothing to add beyond the flags' own metadata.
    callback(null, { metadata: { fields: {} } });
  };

  const server = new Server();
  server.addService(service, { syncFlags, fetchAllFlags, getMetadata });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  options.log.info({ port }, 'flagd sync (gRPC) listening');
  return {
    port,
    openStreams: () => streams.size,
    async close() {
      for (const call of [...streams]) {
        streams.delete(call);
        call.end();
      }
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

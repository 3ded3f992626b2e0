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
import type { AccessRule, Admission, Caller } from '../access/admission.ts';
import type { Principal } from '../domain/api-key.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import { DomainError, ERROR_CATALOGUE } from '../domain/errors.ts';
import type { KeyRevocations } from '../plane/key-revocations.ts';
import type { ProjectChanges } from '../plane/project-changes.ts';
import { syncCredentialKeyId, syncScope } from '../plane/sync-credential.ts';
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
  /** Unix ms when the credential's key expires: the stream ends then. */
  readonly endsAt: number;
}

/** What the sync server reads: admission, the plane's changes and revocations, and two use cases. */
export interface SyncSources {
  readonly admission: Admission;
  readonly changes: ProjectChanges;
  readonly revocations: KeyRevocations;
  readonly services: Pick<Services, 'apiKeys' | 'evaluation' | 'flagd'>;
}

interface SyncCall {
  readonly metadata: Metadata;
  readonly request: SyncRequest;
  getPeer(): string;
}

/** setTimeout's longest delay; a key expiring later is looked at again then. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

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
 * flagd export; every change that alters it is pushed to its streams, which end when their key
 * is revoked or expires, as OFREP event streams do.
 */
export async function startFlagdSyncServer(
  sources: SyncSources,
  options: {
    port: number;
    host: string;
    log: SyncServerLog;
    /** Against which key expiry is measured: admission's (tests pass a fake one to both). */
    clock?: Clock;
  },
): Promise<FlagdSyncServer> {
  const definition = loadSync(PROTO, { keepCase: false, longs: String, enums: String, defaults: true });
  const sync = (loadPackageDefinition(definition).flagd as GrpcObject).sync as GrpcObject;
  const service = ((sync.v1 as GrpcObject).FlagSyncService as ServiceClientConstructor).service;
  const streams = new Set<ServerWritableStream<SyncRequest, unknown>>();
  const payloadOf = sharedPayloads(sources);
  const sourceOf = (call: SyncCall) => admitSync(sources, options.log, call);

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
    followSource(sources, call, source, {
      payloadOf,
      open: () => streams.has(call),
      forget: () => streams.delete(call),
      log: options.log,
      clock: options.clock ?? systemClock,
    });
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
  return listening(server, streams, options);
}

/** The server bound to its port; closing it ends the open streams first. */
async function listening(
  server: Server,
  streams: Set<ServerWritableStream<SyncRequest, unknown>>,
  options: { port: number; host: string; log: SyncServerLog },
): Promise<FlagdSyncServer> {
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

/** One export per environment and revision, shared by every stream of it. */
function sharedPayloads(sources: SyncSources): (source: SyncSource) => Promise<string> {
  const payloads = new Map<string, { revision: number; payload: Promise<string> }>();
  return (source) => {
    const key = `${source.projectId}/${source.environment}`;
    const revision = sources.changes.revisionOf(source.projectId) ?? 0;
    const cached = payloads.get(key);
    if (cached !== undefined && cached.revision === revision) return cached.payload;
    const payload = sources.services.flagd.exportEnvironmentText(source.projectId, source.environment);
    payloads.set(key, { revision, payload });
    payload.catch(() => {
      if (payloads.get(key)?.payload === payload) payloads.delete(key);
    });
    return payload;
  };
}

/**
 * The environment a call may sync, admitted like every other way in: the selector's credential
 * (failures limited per address, in the same budget as HTTP's), the key's project and
 * environments, and an environment that exists. Throws the refusal.
 */
async function admitSync(sources: SyncSources, log: SyncServerLog, call: SyncCall): Promise<SyncSource> {
  const caller: Caller = { ip: peerAddress(call.getPeer()) };
  const header = call.metadata.get(SELECTOR_HEADER)[0];
  const selector = typeof header === 'string' && header !== '' ? header : (call.request.selector ?? '');
  const parsed = parseSyncSelector(selector);
  const credential =
    parsed === undefined
      ? { kind: 'none' as const, rejection: SELECTOR_FORMAT }
      : {
          kind: 'sync' as const,
          id: hashSecret(parsed.secret),
          secret: parsed.secret,
          scope: syncScope(parsed.project, parsed.environment),
        };
  const environment = parsed?.environment ?? '';
  // A sync stream reads one environment's flag definitions: an evaluator's right, with no rate budget.
  const rule: AccessRule = { role: 'evaluator', budget: false, environments: () => [environment] };
  const verdict = await sources.admission.admit(caller, credential, rule);
  if (verdict !== undefined) {
    const { code, message } = verdict.error;
    if (code === 'rate_limited') throw TOO_MANY_FAILURES;
    if (code !== 'unauthorized' || parsed === undefined) throw verdict.error;
    throw new SyncRefusal(status.UNAUTHENTICATED, await whyRefused(sources, log, parsed.secret, message));
  }
  const principal = caller.principal as Principal;
  // The same checks as an evaluation request's: the key's project and environments, and an environment that exists.
  const { projectId } = await sources.services.evaluation.target(
    { principal, requestId: 'flagd-sync' },
    { project: parsed?.project, environment },
  );
  return { principal, projectId, environment, endsAt: caller.endsAt ?? Number.POSITIVE_INFINITY };
}

const SELECTOR_FORMAT =
  'Send the selector "<project>/<environment>#<sync credential>" (flagd-selector header or request field); the key\'s selectors are in Settings → API keys.';

const TOO_MANY_FAILURES = new SyncRefusal(
  status.RESOURCE_EXHAUSTED,
  'Too many failed authentications from this address; retry later.',
);

/**
 * Why a selector's credential was refused. An API key's own secret is refused too, with a
 * warning naming the key (never the secret): providers copy the selector into flag metadata,
 * where applications log it (docs/decisions/1771).
 */
async function whyRefused(
  sources: SyncSources,
  log: SyncServerLog,
  secret: string,
  refused: string,
): Promise<string> {
  const apiKey =
    syncCredentialKeyId(secret) === undefined
      ? await sources.services.apiKeys.authenticate(secret)
      : undefined;
  if (apiKey === undefined) return refused;
  log.warn(
    { keyId: apiKey.id },
    'flagd sync refused an API key in a selector; the key should be revoked and its sync credential used',
  );
  return "A selector carries a sync credential, not an API key: flagd providers copy the selector into flag metadata. Use the key's selector from Settings → API keys (or GET /v1/api-keys/{id}/flagd-sync).";
}

/**
 * Pushes the environment's flag configuration to an admitted stream on every change, until the
 * client goes, or its key is revoked or expires (UNAUTHENTICATED, as a new call would be).
 */
function followSource(
  sources: SyncSources,
  call: ServerWritableStream<SyncRequest, unknown>,
  source: SyncSource,
  stream: {
    payloadOf(source: SyncSource): Promise<string>;
    open(): boolean;
    forget(): boolean;
    log: SyncServerLog;
    clock: Clock;
  },
): void {
  let sent = '';
  /** Pushes are chained, so a slow export never overtakes a newer one. */
  let queue: Promise<void> = Promise.resolve();
  const push = () => {
    queue = queue
      .then(async () => {
        if (call.cancelled || !stream.open()) return;
        const payload = await stream.payloadOf(source);
        if (payload === sent) return;
        sent = payload;
        call.write({ flagConfiguration: payload });
      })
      .catch((error) => stream.log.warn({ err: error }, 'flagd sync could not export the environment'));
  };
  const end = (details: string) => {
    if (!stream.forget()) return;
    cleanup();
    call.emit('error', { code: status.UNAUTHENTICATED, details });
  };
  const unsubscribe = sources.changes.subscribe(source.projectId, push);
  const unrevoke = sources.revocations.subscribe(source.principal.id, () => end('The API key was revoked.'));
  let expiry: NodeJS.Timeout | undefined;
  const expireAt = () => {
    const left = source.endsAt - stream.clock();
    if (left <= 0) end('The API key has expired.');
    else if (left !== Number.POSITIVE_INFINITY)
      expiry = setTimeout(expireAt, Math.min(left, LONGEST_TIMER_MS));
  };
  const cleanup = () => {
    clearTimeout(expiry);
    unsubscribe();
    unrevoke();
  };
  for (const event of ['cancelled', 'close']) {
    call.on(event, () => {
      if (stream.forget()) cleanup();
    });
  }
  expireAt();
  push();
}

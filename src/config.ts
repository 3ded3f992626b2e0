import { isIP } from 'node:net';
import type { MappedRole } from './domain/account.ts';
import { allowsPlainHttp, DEFAULT_OIDC_SCOPES, type OidcSettings } from './domain/oidc-issuer.ts';
import { parseRoleMappings } from './domain/role-mapping.ts';
import { MIN_SECRET_KEY_LENGTH } from './domain/server-secret.ts';

/** Configuration is read from the environment once, validated, and frozen (docs/product.md §1). */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly adminKey: string | undefined;
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  readonly logLevel: string;
  readonly rateLimitEvaluation: number;
  readonly rateLimitManagement: number;
  /** FLAGSTAFF_WORKERS: processes sharing the port (node:cluster); default 1. */
  readonly workers: number;
  /** Set by the primary for its workers (0 … N−1, kept across a worker's restart); undefined in a single process. */
  readonly workerIndex: number | undefined;
  readonly corsOrigins: readonly string[];
  /** FLAGSTAFF_TRUST_PROXY: whether X-Forwarded-For names the client (hops, or the proxies' addresses). */
  readonly trustProxy: TrustProxy;
  /** FLAGSTAFF_REDIS_URL: rate limits shared by every node; unset, per node. */
  readonly redisUrl: string | undefined;
  /** FLAGSTAFF_FLAGD_SYNC_PORT: serve flagd's gRPC sync there (docs/product.md §9); unset: off. */
  readonly flagdSyncPort: number | undefined;
  /** FLAGSTAFF_INSIGHTS: count evaluations per flag for insights (default on). */
  readonly insights: boolean;
  /** FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE=true: webhooks may reach loopback and private addresses. */
  readonly webhooksAllowPrivate: boolean;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: where traces go over OTLP/HTTP; unset, OpenTelemetry is not even loaded. */
  readonly otlpEndpoint: string | undefined;
  /** OTEL_SERVICE_NAME, default flagstaff. */
  readonly otelServiceName: string;
  /** FLAGSTAFF_STREAMS_PER_NODE: open event streams this node holds at most; unset, 10,000 (under the descriptor limit). */
  readonly streamsPerNode: number | undefined;
  /** FLAGSTAFF_STREAMS_PER_KEY: open event streams one API key holds on one node at most; unset, 5,000. */
  readonly streamsPerKey: number | undefined;
  /** FLAGSTAFF_PUBLIC_URL: the absolute http(s) URL clients reach this service by, without a trailing slash. */
  readonly publicUrl: string | undefined;
  /** Single sign-on through an OpenID provider (decision 1720); undefined when FLAGSTAFF_OIDC_ISSUER is unset. */
  readonly oidc: OidcSettings | undefined;
  /** FLAGSTAFF_PASSWORD_SIGN_IN=off: the dashboard's password sign-in is refused (API keys still work). */
  readonly passwordSignIn: boolean;
  /** FLAGSTAFF_SHUTDOWN_GRACE (seconds, default 10): how long requests in flight get to finish on SIGTERM. */
  readonly shutdownGraceMs: number;
  /**
   * FLAGSTAFF_SECRET_KEY: the server secret, kept out of the database (docs/decisions/1880); unset,
   * the key file beside the data (storage/server-key-file.ts).
   */
  readonly secretKey: string | undefined;
  /**
   * FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL (ms since the epoch): until then, flagd sync
   * credentials of the derivation before the server secret still work (decision 1880).
   */
  readonly legacySyncCredentialsUntil: number | undefined;
  /** FLAGSTAFF_EVENT_RETENTION_DAYS (default 90): how long raw tracking events are kept. */
  readonly eventRetentionDays: number;
  /** FLAGSTAFF_PROMETHEUS_URL: the Prometheus whose HTTP query API release-plan guards read; unset, no Prometheus guard. */
  readonly prometheusUrl: string | undefined;
  /** FLAGSTAFF_RELEASE_IDLE_MEMORY (default on): V8 gives freed memory back once the node is quiet (decision 2097). */
  readonly releaseIdleMemory: boolean;
}

/** `false` (unset): the socket's peer is the client; a hop count; or the addresses/CIDRs of trusted proxies. */
export type TrustProxy = false | number | readonly string[];

/** A configuration value the process cannot start with; its message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Readonly<Record<string, string | undefined>>;

function boolean(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function trustProxy(env: Env): TrustProxy {
  const raw = env.FLAGSTAFF_TRUST_PROXY?.trim();
  if (raw === undefined || raw === '') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const version = isIP(address);
    const maxPrefix = version === 4 ? 32 : 128;
    if (
      version === 0 ||
      extra !== undefined ||
      (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= maxPrefix))
    ) {
      throw new ConfigError(
        `FLAGSTAFF_TRUST_PROXY must be a hop count or comma-separated addresses/CIDRs, got "${entry}"`,
      );
    }
  }
  return Object.freeze(entries);
}

function redisUrl(env: Env): string | undefined {
  const url = env.FLAGSTAFF_REDIS_URL || undefined;
  if (url === undefined || /^rediss?:\/\/.+/.test(url)) return url;
  throw new ConfigError(
    `FLAGSTAFF_REDIS_URL must be redis://… or rediss://…, got "${url.replace(/:[^:@/]*@/, ':***@')}"`,
  );
}

function publicUrl(env: Env): string | undefined {
  const raw = env.FLAGSTAFF_PUBLIC_URL || undefined;
  if (raw === undefined) return undefined;
  if (!/^https?:\/\/[^/]/.test(raw) || !URL.canParse(raw)) {
    throw new ConfigError(`FLAGSTAFF_PUBLIC_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** At most this far ahead: a window to move flagd providers to new selectors, not a setting to keep. */
const LEGACY_WINDOW_MAX_MS = 90 * 24 * 60 * 60 * 1000;

function legacySyncCredentialsUntil(env: Env): number | undefined {
  const raw = env.FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL || undefined;
  if (raw === undefined) return undefined;
  const until = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(until) || until > Date.now() + LEGACY_WINDOW_MAX_MS) {
    throw new ConfigError(
      `FLAGSTAFF_LEGACY_SYNC_CREDENTIALS_UNTIL must be a date (2026-12-31 or an RFC 3339 time) at most 90 days ahead, got "${raw}"`,
    );
  }
  return until;
}

function databaseUrl(env: Env): string {
  const url = env.FLAGSTAFF_DATABASE_URL || 'sqlite:./data/flagstaff.db';
  if (/^sqlite:.+/.test(url) || /^postgres(ql)?:\/\/.+/.test(url)) return url;
  throw new ConfigError(
    `FLAGSTAFF_DATABASE_URL must be sqlite:PATH, sqlite::memory: or postgres://…, got "${url.replace(/:[^:@/]*@/, ':***@')}"`,
  );
}

const OIDC_REQUIRED = [
  'FLAGSTAFF_OIDC_CLIENT_ID',
  'FLAGSTAFF_OIDC_CLIENT_SECRET',
  'FLAGSTAFF_PUBLIC_URL',
] as const;

/** Single sign-on, all or nothing: the issuer turns it on and needs the client and the public URL. */
function oidc(env: Env, base: string | undefined): OidcSettings | undefined {
  const issuer = env.FLAGSTAFF_OIDC_ISSUER || undefined;
  if (issuer === undefined) {
    const stray = ['FLAGSTAFF_OIDC_CLIENT_ID', 'FLAGSTAFF_OIDC_ROLES'].find((name) => env[name]);
    if (stray)
      throw new ConfigError(`${stray} is set but FLAGSTAFF_OIDC_ISSUER is not: set both, or neither`);
    return undefined;
  }
  const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
  // Plain http only for a provider on this machine (a local test provider): decision 1720.
  if (url === undefined || (url.protocol !== 'https:' && !allowsPlainHttp(url))) {
    throw new ConfigError(
      `FLAGSTAFF_OIDC_ISSUER must be the provider's https issuer URL (http only on 127.0.0.1 or localhost), got "${issuer}"`,
    );
  }
  const missing = OIDC_REQUIRED.find((name) => !env[name]);
  if (missing) throw new ConfigError(`${missing} must be set when FLAGSTAFF_OIDC_ISSUER is`);
  const rawRoles = env.FLAGSTAFF_OIDC_ROLES || '';
  let roles: readonly MappedRole[];
  try {
    roles = parseRoleMappings(rawRoles);
  } catch (error) {
    throw new ConfigError(`FLAGSTAFF_OIDC_ROLES ${(error as Error).message}`);
  }
  return Object.freeze({
    issuer,
    clientId: env.FLAGSTAFF_OIDC_CLIENT_ID as string,
    clientSecret: env.FLAGSTAFF_OIDC_CLIENT_SECRET as string,
    redirectUri: `${base}/v1/auth/oidc/callback`,
    label: env.FLAGSTAFF_OIDC_LABEL?.trim() || 'SSO',
    rolesClaim: env.FLAGSTAFF_OIDC_ROLES_CLAIM?.trim() || 'groups',
    roles,
    scopes: oidcScopes(env.FLAGSTAFF_OIDC_SCOPES),
  });
}

/** FLAGSTAFF_OIDC_SCOPES: space- or comma-separated scope tokens (RFC 6749 §3.3), `openid` among them. */
function oidcScopes(raw: string | undefined): readonly string[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_OIDC_SCOPES;
  const scopes = [...new Set(raw.split(/[\s,]+/).filter((scope) => scope !== ''))];
  const bad = scopes.find((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope));
  if (bad !== undefined)
    throw new ConfigError(`FLAGSTAFF_OIDC_SCOPES has "${bad}", which is not a scope token`);
  if (!scopes.includes('openid'))
    throw new ConfigError(`FLAGSTAFF_OIDC_SCOPES must include openid, got "${raw.trim()}"`);
  return scopes;
}

/** The secrets a start refuses to take a documented placeholder for. */
const SECRET_VARIABLES = [
  'FLAGSTAFF_ADMIN_KEY',
  'FLAGSTAFF_ADMIN_PASSWORD',
  'FLAGSTAFF_SECRET_KEY',
  'FLAGSTAFF_OIDC_CLIENT_SECRET',
] as const;
const URL_VARIABLES = ['FLAGSTAFF_DATABASE_URL', 'FLAGSTAFF_REDIS_URL'] as const;

/**
 * Every placeholder in Flagstaff's examples (deploy/kubernetes/secret.example.yaml, the README)
 * begins with `change-me`: a value copied from them is publicly known, so no start takes it
 * (issue 38). The value is never printed.
 */
const isPlaceholder = (value: string) => /^change-me/i.test(value.trim());

function refusePlaceholders(env: Env): void {
  const secret = SECRET_VARIABLES.find((name) => isPlaceholder(env[name] ?? ''));
  const password = URL_VARIABLES.find((name) => {
    const raw = env[name] ?? '';
    return URL.canParse(raw) && isPlaceholder(decodeURIComponent(new URL(raw).password));
  });
  const name = secret ?? password;
  if (name === undefined) return;
  throw new ConfigError(
    `${name} holds the documented placeholder ${secret === undefined ? 'password ' : ''}"change-me…": set a secret of your own (openssl rand -base64 32 makes one)`,
  );
}

/** Reads and validates every FLAGSTAFF_* variable; throws ConfigError naming the first bad one. */
export function loadConfig(env: Env = process.env): Config {
  refusePlaceholders(env);
  const checked = checkedSettings(env);
  const base = publicUrl(env);
  const host = env.FLAGSTAFF_HOST || '127.0.0.1';
  if (/\s/.test(host)) throw new ConfigError(`FLAGSTAFF_HOST must be an address, got "${host}"`);
  return Object.freeze({
    port: integer(env, 'FLAGSTAFF_PORT', 8080, 0, 65535),
    host,
    databaseUrl: databaseUrl(env),
    adminKey: checked.adminKey,
    adminEmail: env.FLAGSTAFF_ADMIN_EMAIL || undefined,
    adminPassword: checked.adminPassword,
    logLevel: checked.logLevel,
    rateLimitEvaluation: integer(env, 'FLAGSTAFF_RATE_LIMIT_EVALUATION', 1000, 0, 10_000_000),
    rateLimitManagement: integer(env, 'FLAGSTAFF_RATE_LIMIT_MANAGEMENT', 50, 0, 10_000_000),
    workers: integer(env, 'FLAGSTAFF_WORKERS', 1, 1, 256),
    workerIndex: optionalInteger(env, 'FLAGSTAFF_WORKER_INDEX', 0, 255),
    trustProxy: trustProxy(env),
    redisUrl: redisUrl(env),
    flagdSyncPort: optionalInteger(env, 'FLAGSTAFF_FLAGD_SYNC_PORT', 1, 65535),
    corsOrigins: Object.freeze((env.FLAGSTAFF_CORS_ORIGINS || '*').split(',').map((origin) => origin.trim())),
    insights: checked.insights,
    webhooksAllowPrivate: boolean(env, 'FLAGSTAFF_WEBHOOK_ALLOW_PRIVATE'),
    otlpEndpoint: checked.otlpEndpoint,
    otelServiceName: env.OTEL_SERVICE_NAME || 'flagstaff',
    publicUrl: base,
    streamsPerNode: optionalInteger(env, 'FLAGSTAFF_STREAMS_PER_NODE', 1, 10_000_000),
    streamsPerKey: optionalInteger(env, 'FLAGSTAFF_STREAMS_PER_KEY', 1, 10_000_000),
    oidc: oidc(env, base),
    passwordSignIn: checked.passwordSignIn,
    shutdownGraceMs: integer(env, 'FLAGSTAFF_SHUTDOWN_GRACE', 10, 1, 3600) * 1000,
    secretKey: checked.secretKey,
    legacySyncCredentialsUntil: legacySyncCredentialsUntil(env),
    eventRetentionDays: integer(env, 'FLAGSTAFF_EVENT_RETENTION_DAYS', 90, 1, 3650),
    prometheusUrl: checked.prometheusUrl,
    releaseIdleMemory: onOff(env, 'FLAGSTAFF_RELEASE_IDLE_MEMORY'),
  });
}

/** An integer setting that is absent unless set. */
const optionalInteger = (env: Env, name: string, min: number, max: number): number | undefined =>
  env[name] ? integer(env, name, 0, min, max) : undefined;

/** A switch, `on` unless set to `off`. */
function onOff(env: Env, name: string): boolean {
  const value = env[name] || 'on';
  if (value !== 'on' && value !== 'off') throw new ConfigError(`${name} must be on or off, got "${value}"`);
  return value === 'on';
}

/** The settings checked one by one before the rest, in the order their errors are reported. */
function checkedSettings(env: Env) {
  const adminKey = env.FLAGSTAFF_ADMIN_KEY || undefined;
  if (adminKey !== undefined && adminKey.length < 32) {
    throw new ConfigError('FLAGSTAFF_ADMIN_KEY must be at least 32 characters long');
  }
  const logLevel = env.FLAGSTAFF_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`FLAGSTAFF_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const adminPassword = env.FLAGSTAFF_ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && adminPassword.length < 12) {
    throw new ConfigError('FLAGSTAFF_ADMIN_PASSWORD must be at least 12 characters long');
  }
  const insights = onOff(env, 'FLAGSTAFF_INSIGHTS');
  const otlpEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (otlpEndpoint !== undefined && !URL.canParse(otlpEndpoint)) {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT must be a URL, got "${otlpEndpoint}"`);
  }
  const prometheusUrl = env.FLAGSTAFF_PROMETHEUS_URL || undefined;
  if (prometheusUrl !== undefined && !/^https?:\/\//.test(prometheusUrl)) {
    throw new ConfigError(`FLAGSTAFF_PROMETHEUS_URL must be an http(s) URL, got "${prometheusUrl}"`);
  }
  const passwordSignIn = onOff(env, 'FLAGSTAFF_PASSWORD_SIGN_IN');
  const secretKey = env.FLAGSTAFF_SECRET_KEY || undefined;
  if (secretKey !== undefined && secretKey.trim().length < MIN_SECRET_KEY_LENGTH) {
    throw new ConfigError(
      `FLAGSTAFF_SECRET_KEY must be at least ${MIN_SECRET_KEY_LENGTH} characters long (openssl rand -base64 32 makes one)`,
    );
  }
  return {
    adminKey,
    logLevel,
    adminPassword,
    insights,
    otlpEndpoint,
    prometheusUrl,
    passwordSignIn,
    secretKey: secretKey?.trim(),
  };
}

/**
 * One worker's share of a per-key rate limit (decision 1986): the cluster's primary hands
 * connections to its workers in turn, so each sees about 1/N of a key's requests, and the sum of
 * the shares is the limit. 0 (off) stays off. With FLAGSTAFF_REDIS_URL the budget is shared instead.
 */
export function workerShare(limit: number, workers: number): number {
  return limit === 0 ? 0 : Math.max(1, Math.ceil(limit / workers));
}

/** `flagstaff edge` (SPEC §14): a node's settings, and where it follows and keeps its snapshot. */
export interface EdgeConfig extends Config {
  /** FLAGSTAFF_UPSTREAM_URL: a Flagstaff node, or another edge. */
  readonly upstreamUrl: string;
  /** FLAGSTAFF_EDGE_KEY: an API key with the role `edge`. */
  readonly edgeKey: string;
  /** FLAGSTAFF_EDGE_CACHE: a directory for the last snapshot and the forwarding outbox. */
  readonly edgeCache: string;
  /** FLAGSTAFF_EDGE_BUFFER_BATCHES: forwarded batches kept on disk at most; default 10,000. */
  readonly edgeBufferBatches: number;
}

/** Reads an edge's configuration; a missing or malformed variable is one ConfigError naming it. */
export function loadEdgeConfig(env: Env = process.env): EdgeConfig {
  const upstreamUrl = env.FLAGSTAFF_UPSTREAM_URL || undefined;
  if (upstreamUrl === undefined) {
    throw new ConfigError(
      'FLAGSTAFF_UPSTREAM_URL must be set: the URL of the Flagstaff node (or edge) to follow',
    );
  }
  if (!/^https?:\/\//.test(upstreamUrl) || !URL.canParse(upstreamUrl)) {
    throw new ConfigError(`FLAGSTAFF_UPSTREAM_URL must be an http(s) URL, got "${upstreamUrl}"`);
  }
  const edgeKey = env.FLAGSTAFF_EDGE_KEY || undefined;
  if (edgeKey === undefined) {
    throw new ConfigError('FLAGSTAFF_EDGE_KEY must be set: an API key with the role edge, created upstream');
  }
  const edgeCache = env.FLAGSTAFF_EDGE_CACHE || undefined;
  if (edgeCache === undefined) {
    throw new ConfigError(
      'FLAGSTAFF_EDGE_CACHE must be set: a directory where the edge keeps its last snapshot',
    );
  }
  return Object.freeze({
    ...loadConfig(env),
    upstreamUrl: upstreamUrl.replace(/\/+$/, ''),
    edgeKey,
    edgeCache,
    edgeBufferBatches: integer(env, 'FLAGSTAFF_EDGE_BUFFER_BATCHES', 10_000, 1, 10_000_000),
  });
}

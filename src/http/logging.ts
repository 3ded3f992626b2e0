import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

/**
 * Query parameters whose values are secrets whatever they hold. A key belongs in the
 * Authorization header, but one sent as `?api_key=` must still never reach a log line; nor
 * may the authorization code and state of a single sign-on callback (decision 1720).
 */
const SECRET_NAME = /key|token|secret|passw|auth|session|cookie|signature|credential|^(code|state|nonce)$/i;
/** Values that look like one of ours wherever they appear: API keys, sessions, invitations. */
const SECRET_VALUE = /fs[a-z]_[A-Za-z0-9_-]+/g;
const REDACTED = '[redacted]';

/** The URL as logs may show it: secret-looking query values replaced, the path kept. */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  const path = url.slice(0, query === -1 ? url.length : query).replace(SECRET_VALUE, REDACTED);
  if (query === -1) return path;
  const pairs = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair.replace(SECRET_VALUE, REDACTED);
      const name = pair.slice(0, equals);
      return SECRET_NAME.test(safeDecode(name))
        ? `${name}=${REDACTED}`
        : `${name}=${pair.slice(equals + 1).replace(SECRET_VALUE, REDACTED)}`;
    });
  return `${path}?${pairs.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly id?: string;
}

const serializeRequest = (request: LoggedRequest) => ({
  method: request.method,
  url: redactUrl(request.url),
});

/**
 * The logger `serve` runs with: pino at `level`, requests described by method and redacted
 * URL only (never headers), Authorization and cookies redacted should a header ever be logged.
 */
export function loggerOptions(
  level: string,
  stream?: NodeJS.WritableStream,
): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'],
    serializers: {
      req: serializeRequest,
    },
  };
}

/**
 * The app's logger options with requests serialised as method and redacted URL, whatever the
 * caller chose: stream URLs authenticate by a token in their query (EventSource sends no
 * headers), and a key sent as `?api_key=` must not reach a log line either.
 */
export function withRedactedUrls(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: serializeRequest } };
}

/**
 * Fastify's per-request log lines, replaced: nothing when a request arrives, and one line when
 * it completes, at `debug` (method, redacted URL, status, milliseconds) instead of two `info`
 * lines. At the default `info` a request writes nothing to the log unless it fails.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error({ req: request, statusCode: reply.statusCode, err: error }, 'request errored');
    } else if ((reply.log as Partial<Logger>).isLevelEnabled?.('debug')) {
      reply.log.debug(
        {
          method: request.method,
          url: redactUrl(request.url),
          statusCode: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
    }
  }

  override routeNotFound(): void {}
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Logger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/**
 * A request's logger that becomes a real pino child (with its `reqId` binding) only when a
 * line at an enabled level is written. Most requests write none, and creating a child per
 * request is a measurable share of an evaluation's cost (decision 0207: the lean evaluation path).
 */
class LazyChildLogger {
  #child: FastifyBaseLogger | undefined;
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    return this.#parent.level;
  }

  isLevelEnabled(level: string): boolean {
    return this.#parent.isLevelEnabled(level);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #write(level: Level, args: unknown[]): void {
    if (!this.#parent.isLevelEnabled(level)) return;
    (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }
}

/** Fastify's `childLoggerFactory`: lazy children, unless a route asks for a level of its own. */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // No logger at all (tests): Fastify's null logger is its own child and costs nothing.
  if (options.level !== undefined || typeof (logger as Partial<Logger>).isLevelEnabled !== 'function') {
    return logger.child(bindings, options);
  }
  return new LazyChildLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}

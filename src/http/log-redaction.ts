import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/** Query parameters that carry credentials: the OFREP stream URL's signed token. */
const CREDENTIAL_PARAMETERS = /([?&]token=)[^&#]*/gi;

/** A URL as it may be logged: credential parameters replaced by `[redacted]`. */
export const redactUrl = (url: string): string => url.replace(CREDENTIAL_PARAMETERS, '$1[redacted]');

/**
 * Fastify's request log line, with the URL redacted: stream URLs authenticate by a token in
 * their query (EventSource sends no headers), and OFREP says it must not be logged.
 */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The app's logger options with the request serializer above, whatever else the caller chose. */
export function withRedactedUrls(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: serializeRequest } };
}

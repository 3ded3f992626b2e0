const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether an identity provider may be reached over plain http: only on this machine (a test or
 * local provider), never over a network (decision 1720).
 */
export const allowsPlainHttp = (issuer: URL): boolean =>
  issuer.protocol === 'http:' && LOOPBACK_HOSTS.has(issuer.hostname);

// The OpenFeature suites' names for the one test server (test/support/server.ts).
export { startTestServer as startServer, UNLIMITED } from '../../support/server.ts';

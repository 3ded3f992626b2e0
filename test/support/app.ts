import type { FastifyInstance } from 'fastify';
import type { AdmissionOptions } from '../../src/access/create-admission.ts';
import { type AppOptions, buildApp } from '../../src/http/build-app.ts';
import type { Authenticator } from '../../src/http/plugins/authentication.ts';
import { composeNode, type Node, type NodeOptions, servedBy } from '../../src/main.ts';
import type { Store } from '../../src/storage/store.ts';

/** What a test chooses of a node's app: buildApp's options but what the node serves, and the node's own. */
export interface TestAppOptions
  extends Omit<AppOptions, 'services' | 'admission' | 'realtime' | 'changes' | 'evaluationCounts'> {
  /** Admission's rate limits, clock and shared leases, and ways to authenticate after API keys and sessions. */
  readonly accessControl?: AdmissionOptions & { readonly authenticators?: readonly Authenticator[] };
  /** The node's use cases and clock (composeNode's options, but admission). */
  readonly node?: Omit<NodeOptions, 'admission'>;
}

/** A node composed as main.ts composes it, over `store`, and its app (not listening). */
export async function buildTestApp(
  store: Store,
  options: TestAppOptions = {},
): Promise<{ readonly app: FastifyInstance; readonly node: Node }> {
  const { accessControl = {}, node: nodeOptions = {}, ...appOptions } = options;
  const { authenticators, ...admission } = accessControl;
  const node = composeNode(store, { ...nodeOptions, admission });
  const app = await buildApp({
    ...servedBy(node),
    ...appOptions,
    ...(authenticators === undefined ? {} : { authenticators }),
  });
  // A client may open a connection it never sends a request on (undici does, after an aborted
  // stream); Node's server counts it as busy until its headers timeout (60 s), so closing the app
  // would wait that long. A test tearing down wants everything gone: what is open 100 ms after
  // close begins is ended (the node's own shutdown drains with a grace period: decision 1731).
  app.addHook('preClose', async () => {
    setTimeout(() => app.server.closeAllConnections(), 100).unref();
  });
  return { app, node };
}

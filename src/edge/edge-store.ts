import { notFound } from '../domain/errors.ts';
import type { Store } from '../storage/store.ts';
import type { ForwardingOutbox } from './forwarding-outbox.ts';
import type { UpstreamMirror } from './upstream-mirror.ts';

/**
 * Anything an edge has no database for: every call rejects with a 404 naming the upstream. The
 * edge registers no management route, so this is a backstop for a path that reaches storage
 * anyway (a flagd import through the flagd routes, a session cookie), never the way things work.
 */
function absent(upstream: string, path: string): unknown {
  const refuse = () =>
    Promise.reject(notFound(`An edge keeps no ${path}: it is managed on the upstream, ${upstream}.`));
  return new Proxy(refuse, {
    // Not a promise: `await store.x` must not take it for one.
    get: (_target, property) => (property === 'then' ? undefined : absent(upstream, String(property))),
    apply: refuse,
  });
}

/** `own`, and for anything else `absent`. */
function partial<T extends object>(own: Partial<T>, upstream: string, what: string): T {
  return new Proxy(own as T, {
    get: (target, property) =>
      property in target ? target[property as keyof T] : absent(upstream, `${what} ${String(property)}`),
  });
}

/**
 * The store an edge's node is composed over (decision 1983): evaluation and key lookups read the
 * mirror of upstream's stream; events, exposures and evaluation counts go to the forwarding
 * outbox (written to disk before they count as stored); nothing else exists here.
 */
export function edgeStore(mirror: UpstreamMirror, outbox: ForwardingOutbox, upstream: string): Store {
  const own: Partial<Store> = {
    readProject: (id) => mirror.readProject(id),
    listRevisions: () => mirror.listRevisions(),
    readFlags: (ids) => mirror.readFlags(ids),
    listProjectKeys: () => mirror.listProjectKeys(),
    findProject: async (idOrKey) => mirror.findProject(idOrKey),
    listActiveApiKeys: () => mirror.listActiveApiKeys(),
    apiKeysRevision: () => mirror.apiKeysRevision(),
    findApiKeysByHash: async (hashes) =>
      (await mirror.listActiveApiKeys()).filter((key) => hashes.includes(key.secretHash)),
    // Last use is the upstream's to record; an edge does not report it (docs/edge.md).
    touchApiKeys: async () => undefined,
    events: partial<Store['events']>(
      {
        insertEvents: async (events) => {
          await outbox.add({ events });
          return events.length;
        },
        prepareDays: async () => undefined,
        pruneEvents: async () => 0,
      },
      upstream,
      'event history',
    ),
    exposures: partial<Store['exposures']>(
      { recordExposures: (exposures) => outbox.add({ exposures }) },
      upstream,
      'exposure history',
    ),
    insights: partial<Store['insights']>(
      { addEvaluationCounts: (counts) => outbox.add({ counts }) },
      upstream,
      'insights',
    ),
    ping: async () => undefined,
    close: async () => undefined,
  };
  return partial<Store>(own, upstream, 'store of');
}

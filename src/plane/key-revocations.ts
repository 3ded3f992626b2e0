import { ListenerHub } from './listener-hub.ts';

/**
 * Tells the open streams (SSE, flagd sync) of an API key that it was revoked, so they end at
 * once instead of at their next request. Published by the API key service on this node's
 * revocations; the change feed publishes other nodes' here too.
 */
export class KeyRevocations {
  readonly #hub = new ListenerHub<string>();

  /** Calls `listener` once the key is revoked; returns the unsubscribe. */
  subscribe(keyId: string, listener: () => void): () => void {
    return this.#hub.subscribe(keyId, listener);
  }

  revoked(keyId: string): void {
    this.#hub.publish(keyId, keyId);
  }
}

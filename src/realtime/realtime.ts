import type { Clock } from '../domain/clock.ts';
import type { ServerSecret } from '../domain/server-secret.ts';
import type { KeyRegistry } from '../plane/key-registry.ts';
import type { KeyRevocations } from '../plane/key-revocations.ts';
import type { ProjectChanges } from '../plane/project-changes.ts';
import { SseStreams } from './sse-streams.ts';
import { StreamAccess } from './stream-access.ts';

/** One node's real-time delivery: the OFREP event streams it holds and the tokens that open them. */
export interface Realtime {
  /** Signed URLs for streams whose clients cannot send headers (OFREP SSE). */
  readonly streamAccess: StreamAccess;
  /** This node's open OFREP event streams. */
  readonly eventStreams: SseStreams;
}

/** What real-time delivery consumes of the evaluation plane (the services hand it on). */
export interface RealtimeSources {
  readonly changes: ProjectChanges;
  readonly revocations: KeyRevocations;
  readonly apiKeys: { readonly registry: KeyRegistry };
  readonly clock: Clock;
  readonly serverSecret: ServerSecret;
}

/** Built where the node is wired (main.ts, or buildApp's default), never by the services. */
export function createRealtime(sources: RealtimeSources): Realtime {
  const { changes, revocations, apiKeys, clock, serverSecret } = sources;
  return {
    streamAccess: new StreamAccess(apiKeys.registry, serverSecret, clock),
    eventStreams: new SseStreams(changes, revocations, clock),
  };
}

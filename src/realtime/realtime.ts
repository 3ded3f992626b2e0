import type { Admission } from '../access/admission.ts';
import type { Clock } from '../domain/clock.ts';
import type { ServerSecret } from '../domain/server-secret.ts';
import type { KeyRevocations } from '../plane/key-revocations.ts';
import type { ProjectChanges } from '../plane/project-changes.ts';
import type { EdgeUpstreamService } from '../services/serving/edge-upstream.ts';
import { EdgeStreams } from './edge-streams.ts';
import { SseStreams } from './sse-streams.ts';
import { StreamAccess } from './stream-access.ts';

/** One node's real-time delivery: the OFREP event streams it holds and the tokens that open them. */
export interface Realtime {
  /** Signed URLs for streams whose clients cannot send headers (OFREP SSE). */
  readonly streamAccess: StreamAccess;
  /** This node's open OFREP event streams. */
  readonly eventStreams: SseStreams;
  /** The upstream streams of the edges following this node (SPEC §14). */
  readonly edgeStreams: EdgeStreams;
}

/** What real-time delivery consumes: the plane's changes and revocations, and admission. */
export interface RealtimeSources {
  readonly changes: ProjectChanges;
  readonly revocations: KeyRevocations;
  readonly admission: Admission;
  readonly clock: Clock;
  readonly serverSecret: ServerSecret;
  /** What the edges' streams read: the node's snapshots and keys, scoped to each edge key. */
  readonly edgeUpstream: EdgeUpstreamService;
  /** The edges' heartbeat; default the event streams' (15 s). */
  readonly edgeHeartbeatMs?: number;
}

/** Built where the node is wired (the composition root), never by the services. */
export function createRealtime(sources: RealtimeSources): Realtime {
  const { changes, revocations, admission, clock, serverSecret, edgeUpstream } = sources;
  return {
    streamAccess: new StreamAccess(admission, serverSecret, clock),
    eventStreams: new SseStreams(changes, revocations, clock),
    edgeStreams: new EdgeStreams(edgeUpstream, revocations, sources.edgeHeartbeatMs),
  };
}

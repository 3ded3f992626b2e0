import type { EvaluationDetail } from './evaluation-result.ts';

/** Where an evaluation was served, as its observers see it: never the context it was made for. */
export interface ServedIn {
  readonly projectId: string;
  readonly environment: string;
  /** The request it belongs to (a trace span's). */
  readonly actor: { readonly requestId: string };
}

/**
 * Told of every evaluation an application is served: the /metrics tally, the insights counter
 * and the trace events subscribe to one list (docs/decisions/1772). Called on the hot path, so
 * an observer does little, synchronously.
 */
export interface EvaluationObserver {
  served(where: ServedIn, result: EvaluationDetail, nowMs: number): void;
  servedAll(where: ServedIn, results: readonly EvaluationDetail[], nowMs: number): void;
}

/** Where observers subscribe (the evaluation service): `observe` returns the removal. */
export interface EvaluationObservers {
  observe(observer: EvaluationObserver): () => void;
}

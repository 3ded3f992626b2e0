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
  /**
   * One flag evaluated on its own (REST single, OFREP single). `unit` is the context's targetingKey
   * when it has a string one, for exposures (SPEC §13): nothing else of the context is handed on.
   */
  served(where: ServedIn, result: EvaluationDetail, nowMs: number, unit?: string): void;
  servedAll(where: ServedIn, results: readonly EvaluationDetail[], nowMs: number): void;
}

/** Where observers subscribe (the evaluation service): `observe` returns the removal. */
export interface EvaluationObservers {
  observe(observer: EvaluationObserver): () => void;
}

/**
 * What an observer keeps per project and environment, made on first use. Keyed by project id,
 * then environment key: maps of the strings the request already holds, so no key is built per
 * evaluation on the hot path.
 */
export class PerEnvironment<T> {
  readonly #byProject = new Map<string, Map<string, T>>();
  readonly #make: () => T;

  constructor(make: () => T) {
    this.#make = make;
  }

  /** The value of one project and environment, made when it has none yet. */
  of(projectId: string, environment: string): T {
    let byEnvironment = this.#byProject.get(projectId);
    if (byEnvironment === undefined) {
      byEnvironment = new Map();
      this.#byProject.set(projectId, byEnvironment);
    }
    let value = byEnvironment.get(environment);
    if (value === undefined) {
      value = this.#make();
      byEnvironment.set(environment, value);
    }
    return value;
  }

  /** Every project and environment with its value. */
  *entries(): Generator<readonly [projectId: string, environment: string, value: T]> {
    for (const [projectId, byEnvironment] of this.#byProject) {
      for (const [environment, value] of byEnvironment) yield [projectId, environment, value];
    }
  }
}

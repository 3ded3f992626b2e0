import { BoundedSet } from './bounded-set.ts';
import { EXPOSURE_EVENT, toWireEvent, type WireEvent } from './tracking-event.ts';

/** What the hook reads of an evaluation: the same shapes in the web and the server SDK. */
interface EvaluatedFlag {
  readonly flagKey: string;
  readonly context: Readonly<Record<string, unknown>>;
}
interface EvaluationOutcome {
  readonly variant?: string | undefined;
  readonly errorCode?: string | undefined;
}

/**
 * An OpenFeature hook that reports `$exposure` (`details: { flag, variant }`) after the
 * application reads a flag (SPEC §13 "Exposures"): once per flag, variant and targeting key while
 * it remembers them (at most `remember` combinations, the oldest forgotten first). An evaluation
 * without a variant, an error, or a context without a targeting key exposes nothing.
 */
export class ExposureHook {
  readonly #send: (event: WireEvent) => void;
  readonly #seen: BoundedSet;

  constructor(send: (event: WireEvent) => void, remember: number) {
    this.#send = send;
    this.#seen = new BoundedSet(remember);
  }

  after(hookContext: EvaluatedFlag, details: EvaluationOutcome): void {
    try {
      const { variant } = details;
      const unit = hookContext.context.targetingKey;
      if (
        details.errorCode !== undefined ||
        typeof variant !== 'string' ||
        typeof unit !== 'string' ||
        unit === ''
      ) {
        return;
      }
      // A separator no key or variant holds, so that ("a b", "c") and ("a", "b c") stay apart.
      if (!this.#seen.add(`${hookContext.flagKey}\u0000${variant}\u0000${unit}`)) return;
      this.#send(toWireEvent(EXPOSURE_EVENT, hookContext.context, { flag: hookContext.flagKey, variant }));
    } catch {
      // A hook that throws would turn the application's flag read into an error: never.
    }
  }
}

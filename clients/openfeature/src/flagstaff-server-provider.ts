import { OFREPProvider, type OFREPProviderOptions } from '@openfeature/ofrep-provider';
import type { EvaluationContext, Hook, Provider, TrackingEventDetails } from '@openfeature/server-sdk';
import { OfrepEvaluation } from './ofrep-resolvers.ts';
import { Tracking, type TrackingHandle } from './tracking.ts';
import type { TrackingLogger, TrackingOptions } from './tracking-options.ts';

export type FlagstaffServerProviderOptions = OFREPProviderOptions & {
  /** Batching and buffer settings for track() and exposures. */
  readonly tracking?: TrackingOptions;
  /**
   * Send `$exposure` when the application reads a flag. Default false: the server provider
   * evaluates one flag per request, and Flagstaff records those exposures itself (SPEC §13).
   */
  readonly exposures?: boolean;
  /** Where dropped and refused events are reported (OpenFeature's Logger fits); default the console. */
  readonly logger?: TrackingLogger;
};

/**
 * The official OFREP server provider, unchanged, with OpenFeature's `track()` sent to Flagstaff's
 * POST /v1/events, optionally a hook sending `$exposure`, and what is buffered sent when the
 * provider closes (`await OpenFeature.close()` before the process exits; decision 1930).
 */
export class FlagstaffServerProvider extends OfrepEvaluation<OFREPProvider> implements Provider {
  readonly metadata = { name: 'Flagstaff OFREP provider' } as const;
  readonly runsOn = 'server' as const;
  readonly hooks: Hook[];
  /** What became of the events tracked so far, and a flush. */
  readonly tracking: TrackingHandle;
  readonly #tracking: Tracking;

  constructor(options: FlagstaffServerProviderOptions) {
    const { tracking, exposures = false, logger, ...ofrep } = options;
    super(new OFREPProvider(ofrep));
    this.#tracking = new Tracking(ofrep, tracking, logger);
    this.tracking = this.#tracking;
    this.hooks = exposures ? [this.#tracking.exposureHook as Hook] : [];
  }

  async onClose(): Promise<void> {
    await this.#tracking.sender.close();
  }

  track(name: string, context: EvaluationContext, details: TrackingEventDetails): void {
    this.#tracking.track(name, context, details);
  }
}

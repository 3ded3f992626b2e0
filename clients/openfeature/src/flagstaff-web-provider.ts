import { OFREPWebProvider, type OFREPWebProviderOptions } from '@openfeature/ofrep-web-provider';
import type { EvaluationContext, Hook, Logger, Provider, TrackingEventDetails } from '@openfeature/web-sdk';
import { OfrepEvaluation } from './ofrep-resolvers.ts';
import { onPageHide } from './page-hide.ts';
import { Tracking, type TrackingHandle } from './tracking.ts';
import type { TrackingOptions } from './tracking-options.ts';

export type FlagstaffWebProviderOptions = OFREPWebProviderOptions & {
  /** Batching and buffer settings for track() and exposures. */
  readonly tracking?: TrackingOptions;
  /** Send `$exposure` when the application reads a flag (default true: bulk evaluation records none). */
  readonly exposures?: boolean;
};

/**
 * The official OFREP web provider, unchanged, with OpenFeature's `track()` sent to Flagstaff's
 * POST /v1/events and a hook sending `$exposure` (decision 1930). Evaluation is the official
 * provider's own; tracking runs beside it and never delays it.
 */
export class FlagstaffWebProvider extends OfrepEvaluation<OFREPWebProvider> implements Provider {
  readonly metadata = { name: 'Flagstaff OFREP web provider' } as const;
  readonly runsOn = 'client' as const;
  readonly domainScoped = true;
  readonly hooks: Hook[];
  /** What became of the events tracked so far, and a flush. */
  readonly tracking: TrackingHandle;
  readonly #tracking: Tracking;
  #stopListening: () => void = () => {};

  constructor(options: FlagstaffWebProviderOptions, logger?: Logger) {
    const { tracking, exposures = true, ...ofrep } = options;
    super(new OFREPWebProvider(ofrep, logger));
    this.#tracking = new Tracking(ofrep, tracking, logger);
    this.tracking = this.#tracking;
    this.hooks = exposures ? [this.#tracking.exposureHook as Hook] : [];
  }

  get events() {
    return this.ofrep.events;
  }

  async initialize(context?: EvaluationContext, domain?: string): Promise<void> {
    this.#stopListening();
    this.#stopListening = onPageHide(() => this.#tracking.sender.flushKeepalive());
    await this.ofrep.initialize(context, domain);
  }

  onContextChange(oldContext: EvaluationContext, newContext: EvaluationContext): Promise<void> {
    return this.ofrep.onContextChange(oldContext, newContext);
  }

  async onClose(): Promise<void> {
    this.#stopListening();
    await Promise.allSettled([this.ofrep.onClose?.(), this.#tracking.sender.close()]);
  }

  track(name: string, context: EvaluationContext, details: TrackingEventDetails): void {
    this.#tracking.track(name, context, details);
  }
}

// Exposures (SPEC §13): which variant of an experiment's flag a unit was first shown, and whether
// it was later shown another one. Experiments themselves are another part's; evaluation and the
// event intake only ask the port below which running experiment covers a flag.

/** A running experiment on a flag in an environment: its key and the variants it compares. */
export interface RunningExperiment {
  readonly key: string;
  /** Control and treatments: a unit served another variant is not exposed to the experiment. */
  readonly variants: readonly string[];
}

/**
 * Which running experiment covers flag `flagKey` in environment `environment` of a project, if
 * any. Asked on the evaluation path, so it answers from memory, synchronously.
 */
export interface RunningExperiments {
  covering(projectId: string, environment: string, flagKey: string): RunningExperiment | undefined;
}

/**
 * Running comparisons by the flag they cover, as each source keeps them. Asked on every single
 * evaluation, so it answers without building anything when none runs (the usual case), and keys
 * by one concatenation otherwise: NUL separates the parts, and no key or id may hold one.
 */
export class ComparisonsByFlag {
  readonly #byFlag: ReadonlyMap<string, RunningExperiment>;

  constructor(
    entries: Iterable<
      readonly [place: { projectId: string; environment: string; flagKey: string }, RunningExperiment]
    > = [],
  ) {
    const byFlag = new Map<string, RunningExperiment>();
    for (const [place, running] of entries)
      byFlag.set(placeKey(place.projectId, place.environment, place.flagKey), running);
    this.#byFlag = byFlag;
  }

  covering(projectId: string, environment: string, flagKey: string): RunningExperiment | undefined {
    return this.#byFlag.size === 0 ? undefined : this.#byFlag.get(placeKey(projectId, environment, flagKey));
  }
}

const placeKey = (projectId: string, environment: string, flagKey: string): string =>
  `${projectId}\u0000${environment}\u0000${flagKey}`;

/** Until experiments exist, none runs. */
export const NO_RUNNING_EXPERIMENTS: RunningExperiments = { covering: () => undefined };

/**
 * Experiments and measured release plans both expose units; evaluation asks one port. The first
 * source that covers a flag wins: a flag runs at most one measured comparison at a time per
 * environment, which each source refuses to break when it starts one.
 */
export function combineRunningExperiments(...sources: readonly RunningExperiments[]): RunningExperiments {
  return {
    covering: (projectId, environment, flagKey) => {
      for (const source of sources) {
        const running = source.covering(projectId, environment, flagKey);
        if (running !== undefined) return running;
      }
      return undefined;
    },
  };
}

/** One unit's exposure to one experiment. */
export interface Exposure {
  readonly projectId: string;
  readonly environment: string;
  readonly experiment: string;
  readonly unit: string;
  /** The variant the unit was first shown: it stays in it. */
  readonly variant: string;
  /** When it was first shown (ms since the epoch). */
  readonly firstAt: number;
  /** It was also shown another variant of the experiment. */
  readonly multiple: boolean;
}

/**
 * Two exposures of one unit to one experiment as one: the earlier keeps its variant, and they are
 * multiple once either was or their variants differ. Order-free, so nodes and flushes merge alike.
 */
export function mergeExposures(a: Exposure, b: Exposure): Exposure {
  const first = b.firstAt < a.firstAt ? b : a;
  const multiple = a.multiple || b.multiple || a.variant !== b.variant;
  return first.multiple === multiple ? first : { ...first, multiple };
}

/** The key one unit's exposure to one experiment is kept under. */
export const exposureKey = (e: Pick<Exposure, 'projectId' | 'experiment' | 'unit'>): string =>
  JSON.stringify([e.projectId, e.experiment, e.unit]);

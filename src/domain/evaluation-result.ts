import type { FlagType, JsonValue } from './flag.ts';

/** Why a value was served (SPEC §3, §4.1). */
export type Reason = 'targeting' | 'split' | 'default' | 'disabled' | 'static' | 'prerequisite_failed';

export interface EvaluationResult {
  readonly key: string;
  readonly type: FlagType;
  readonly value: JsonValue;
  readonly reason: Reason;
  readonly variant: string | null;
}

/** The user's context: `targetingKey` is the identity; any other attribute may be targeted. */
export type EvaluationContext = Readonly<Record<string, unknown>>;

import { type RuleAudience, ruleWords } from './rule-words.ts';

/** Each reason of an evaluation in words (docs/product.md §3). */
export const REASON_WORDS: Readonly<Record<string, string>> = {
  targeting: 'a target or rule matched',
  split: 'a percentage rollout picked it',
  default: 'no rule matched: the default',
  disabled: 'the flag is off in this environment',
  static: 'the flag is on with no rules',
  prerequisite_failed: 'a prerequisite flag failed: the off variant',
  error: 'its targeting cannot be evaluated (an imported flagd targeting that does not compile)',
};

/** What the explain routes say decided an evaluation. */
export interface Decision {
  readonly reason: string;
  readonly targetMatched: boolean;
  readonly failedPrerequisite: string | null;
  readonly errorCode?: string | undefined;
  readonly errorMessage?: string | undefined;
  /** The rule that matched with its 1-based number, when one did. */
  readonly rule?: (RuleAudience & { readonly number: number }) | null | undefined;
}

/** What decided an evaluation, in words: the prerequisite, the individual targets, the rule, the switch… */
export function DecidedBy({ decision: d }: { decision: Decision }) {
  if (d.failedPrerequisite)
    return (
      <>
        the prerequisite <strong>{d.failedPrerequisite}</strong>: it is off or does not serve a required
        variant
      </>
    );
  if (d.targetMatched) return <>the individual targets: this targetingKey is listed</>;
  if (d.rule) return <>{ruleWords(d.rule.number, d.rule)}</>;
  if (d.reason === 'disabled') return <>the switch: off</>;
  if (d.reason === 'error')
    return (
      <>
        {d.errorCode}: {d.errorMessage}
      </>
    );
  if (d.reason === 'split') return <>the default rollout</>;
  return <>the default</>;
}

import type { Flag } from '../../domain/flag.ts';
import { type Rule, type Segment, segmentsNamedBy } from '../../domain/segment.ts';

export interface SegmentUser {
  readonly id: string;
  readonly key: string;
  readonly name: string;
}

export interface SegmentUsers {
  /** Flags with a rule that uses the segment, and the environments those rules are in. */
  readonly flags: readonly (SegmentUser & { readonly environments: readonly string[] })[];
  readonly segments: readonly SegmentUser[];
}

/** The flags and segments whose rules refer to the segment `key`. */
export function segmentUsers(
  key: string,
  flags: readonly Flag[],
  segments: readonly Segment[],
): SegmentUsers {
  const refers = (rules: readonly Rule[]) => rules.some((r) => r.type === 'segment' && r.segment === key);
  const user = ({ id, key, name }: SegmentUser) => ({ id, key, name });
  return {
    flags: flags.flatMap((flag) => {
      const environments = Object.entries(flag.environments)
        .filter(([, env]) => env.rules.some((rule) => rule.segments.includes(key) || refers(rule.conditions)))
        .map(([environment]) => environment);
      return environments.length > 0 ? [{ ...user(flag), environments }] : [];
    }),
    segments: segments.filter((s) => s.key !== key && refers(s.rules)).map(user),
  };
}

/**
 * The environments whose evaluation a change of the segment `key` reaches: those where a flag's
 * rules use it, directly or through segments that use it (segment-in-segment, to any depth).
 */
export function environmentsUsingSegment(
  key: string,
  flags: readonly Flag[],
  segments: readonly Segment[],
): string[] {
  const reached = new Set([key]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const segment of segments) {
      if (!reached.has(segment.key) && segmentsNamedBy(segment.rules).some((k) => reached.has(k))) {
        reached.add(segment.key);
        grew = true;
      }
    }
  }
  const environments = new Set<string>();
  for (const segmentKey of reached) {
    for (const user of segmentUsers(segmentKey, flags, segments).flags) {
      for (const environment of user.environments) environments.add(environment);
    }
  }
  return [...environments];
}

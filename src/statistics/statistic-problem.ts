import type { BaseStatistic, TestStatistic } from './statistic.ts';

function baseProblem(stat: BaseStatistic, name: string): string | undefined {
  if (!Number.isInteger(stat.n) || stat.n < 0) return `${name}: n must be a whole number ≥ 0, not ${stat.n}`;
  if (!Number.isFinite(stat.sum)) return `${name}: sum must be a finite number`;
  if (stat.kind === 'proportion' && (stat.sum < 0 || stat.sum > stat.n)) {
    return `${name}: a proportion's sum (units converted) must be between 0 and n (${stat.n}), not ${stat.sum}`;
  }
  if (stat.kind === 'sample-mean' && !(Number.isFinite(stat.sumSquares) && stat.sumSquares >= 0)) {
    return `${name}: sumSquares must be a finite number ≥ 0`;
  }
  return undefined;
}

/** Why `stat` cannot be a variant's statistic, or undefined when it can. */
export function statisticProblem(stat: TestStatistic, name: string): string | undefined {
  if (stat.kind !== 'regression-adjusted') return baseProblem(stat, name);
  if (stat.post.kind !== stat.pre.kind)
    return `${name}: CUPED's post and pre metrics must be of the same kind`;
  if (stat.post.n !== stat.n || stat.pre.n !== stat.n)
    return `${name}: CUPED's post and pre metrics must count its n units`;
  if (!Number.isFinite(stat.postPreSumOfProducts))
    return `${name}: postPreSumOfProducts must be a finite number`;
  return baseProblem(stat.post, `${name}.post`) ?? baseProblem(stat.pre, `${name}.pre`);
}

/** Throws a RangeError naming what is wrong when the two variants cannot be compared. */
export function assertComparable(control: TestStatistic, treatment: TestStatistic): void {
  const problem = statisticProblem(control, 'control') ?? statisticProblem(treatment, 'treatment');
  if (problem !== undefined) throw new RangeError(problem);
  const kinds = (stat: TestStatistic) =>
    stat.kind === 'regression-adjusted' ? `${stat.kind} ${stat.post.kind}` : stat.kind;
  if (kinds(control) !== kinds(treatment)) {
    throw new RangeError(
      `control (${kinds(control)}) and treatment (${kinds(treatment)}) must be of the same kind`,
    );
  }
}

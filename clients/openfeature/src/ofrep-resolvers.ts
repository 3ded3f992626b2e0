/** The four ways OpenFeature asks a provider for a flag's value. */
type ResolverName =
  | 'resolveBooleanEvaluation'
  | 'resolveStringEvaluation'
  | 'resolveNumberEvaluation'
  | 'resolveObjectEvaluation';

/**
 * The resolvers of an official OFREP provider, bound to it: Flagstaff's providers evaluate
 * exactly as OFREP's do (tracking runs beside evaluation, never in it), on the server and the web.
 */
function resolversOf<P extends Record<ResolverName, (...args: never[]) => unknown>>(
  ofrep: P,
): Pick<P, ResolverName> {
  return {
    resolveBooleanEvaluation: ofrep.resolveBooleanEvaluation.bind(ofrep),
    resolveStringEvaluation: ofrep.resolveStringEvaluation.bind(ofrep),
    resolveNumberEvaluation: ofrep.resolveNumberEvaluation.bind(ofrep),
    resolveObjectEvaluation: ofrep.resolveObjectEvaluation.bind(ofrep),
  } as Pick<P, ResolverName>;
}

/** A provider whose evaluation is an official OFREP provider's: its four resolvers, bound to it. */
export abstract class OfrepEvaluation<P extends Record<ResolverName, (...args: never[]) => unknown>> {
  readonly resolveBooleanEvaluation: P['resolveBooleanEvaluation'];
  readonly resolveStringEvaluation: P['resolveStringEvaluation'];
  readonly resolveNumberEvaluation: P['resolveNumberEvaluation'];
  readonly resolveObjectEvaluation: P['resolveObjectEvaluation'];
  protected readonly ofrep: P;

  constructor(ofrep: P) {
    this.ofrep = ofrep;
    ({
      resolveBooleanEvaluation: this.resolveBooleanEvaluation,
      resolveStringEvaluation: this.resolveStringEvaluation,
      resolveNumberEvaluation: this.resolveNumberEvaluation,
      resolveObjectEvaluation: this.resolveObjectEvaluation,
    } = resolversOf(ofrep));
  }
}

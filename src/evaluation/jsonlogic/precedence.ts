// json-logic-engine builds JavaScript source by pasting the text of sub-expressions into templates,
// some of which are not parenthesised (`a ? prev : b ? prev : prev` for `or`). Pasted next to other
// operators (`(X || [])`, `a ?? X`, `'' + X`), that text re-associates as JavaScript grammar says,
// and flagd-core's results follow. We keep such expressions as tokens and parse the pasted sequence.
import type { Run } from './run.ts';

export type Operator = '?' | ':' | '||' | '&&' | '??' | '===' | '<' | '+' | '-';
export type Token = { readonly atom: Run } | { readonly op: Operator };

export const atom = (run: Run): Token => ({ atom: run });
export const op = (operator: Operator): Token => ({ op: operator });
export const literal = (value: unknown): Token => atom(() => value);

/** The pasted text is not JavaScript (e.g. `??` next to `&&`): the engine cannot build the targeting. */
export class PastedSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PastedSyntaxError';
  }
}

const BINARY: Readonly<
  Record<'||' | '&&' | '??' | '===' | '<' | '+' | '-', (a: unknown, b: unknown) => unknown>
> = {
  '||': (a, b) => a || b,
  '&&': (a, b) => a && b,
  '??': (a, b) => a ?? b,
  '===': (a, b) => a === b,
  '<': (a, b) => (a as number) < (b as number),
  '+': (a, b) => (a as number) + (b as number),
  '-': (a, b) => (a as number) - (b as number),
};

const SHORT_CIRCUIT = new Set<Operator>(['||', '&&', '??']);

/** One binary operation of two evaluators; `||`, `&&` and `??` run the right side only when JavaScript would. */
function binary(operator: keyof typeof BINARY, left: Run, right: Run): Run {
  if (SHORT_CIRCUIT.has(operator)) {
    return (data, above, frame) => {
      const value = left(data, above, frame);
      if (operator === '||' ? value : operator === '&&' ? !value : value !== null && value !== undefined)
        return value;
      return right(data, above, frame);
    };
  }
  const apply = BINARY[operator];
  return (data, above, frame) => {
    const a = left(data, above, frame);
    return apply(a, right(data, above, frame));
  };
}

/** Parses tokens with JavaScript's precedence into one evaluator, or throws PastedSyntaxError. */
export function parseTokens(tokens: readonly Token[]): Run {
  let position = 0;
  const peek = (operator: Operator): boolean => {
    const token = tokens[position];
    return token !== undefined && 'op' in token && token.op === operator;
  };
  const expect = (operator: Operator): void => {
    if (!peek(operator)) throw new PastedSyntaxError(`expected "${operator}"`);
    position++;
  };
  const primary = (): Run => {
    const token = tokens[position++];
    if (token === undefined || !('atom' in token)) throw new PastedSyntaxError('expected an operand');
    return token.atom;
  };
  /** `first`, then as long as one of `operators` follows, it applied to what is folded so far and the next operand. */
  const fold = (first: Run, operators: readonly Operator[], operand: () => Run): Run => {
    let left = first;
    for (;;) {
      const operator = operators.find(peek);
      if (operator === undefined) return left;
      position++;
      left = binary(operator as keyof typeof BINARY, left, operand());
    }
  };
  const leftAssociative = (operators: readonly Operator[], operand: () => Run) => (): Run =>
    fold(operand(), operators, operand);
  const additive = leftAssociative(['+', '-'], primary);
  const relational = leftAssociative(['<'], additive);
  const equality = leftAssociative(['==='], relational);
  const logicalAnd = (first: Run): Run => fold(first, ['&&'], equality);
  const shortCircuit = (): Run => {
    const first = equality();
    if (peek('??')) {
      const left = fold(first, ['??'], equality);
      if (peek('||') || peek('&&')) throw new PastedSyntaxError('"??" mixed with "||" or "&&"');
      return left;
    }
    const left = fold(logicalAnd(first), ['||'], () => logicalAnd(equality()));
    if (peek('??')) throw new PastedSyntaxError('"??" mixed with "||" or "&&"');
    return left;
  };
  const conditional = (): Run => {
    const test = shortCircuit();
    if (!peek('?')) return test;
    position++;
    const then = conditional();
    expect(':');
    const otherwise = conditional();
    return (data, above, frame) =>
      test(data, above, frame) ? then(data, above, frame) : otherwise(data, above, frame);
  };
  const run = conditional();
  if (position !== tokens.length) throw new PastedSyntaxError('unexpected operator');
  return run;
}

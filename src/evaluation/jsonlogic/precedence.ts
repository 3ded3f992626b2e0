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
  const binary = (operator: keyof typeof BINARY, left: Run, right: Run): Run => {
    const apply = BINARY[operator];
    if (operator === '||' || operator === '&&' || operator === '??') {
      // Short-circuit: the right side runs only when JavaScript would run it.
      return (data, above, frame) => {
        const value = left(data, above, frame);
        if (operator === '||' ? value : operator === '&&' ? !value : value !== null && value !== undefined)
          return value;
        return right(data, above, frame);
      };
    }
    return (data, above, frame) => {
      const a = left(data, above, frame);
      return apply(a, right(data, above, frame));
    };
  };
  const primary = (): Run => {
    const token = tokens[position++];
    if (token === undefined || !('atom' in token)) throw new PastedSyntaxError('expected an operand');
    return token.atom;
  };
  const leftAssociative = (operators: readonly Operator[], operand: () => Run) => (): Run => {
    let left = operand();
    for (;;) {
      const operator = operators.find(peek);
      if (operator === undefined) return left;
      position++;
      left = binary(operator as keyof typeof BINARY, left, operand());
    }
  };
  const additive = leftAssociative(['+', '-'], primary);
  const relational = leftAssociative(['<'], additive);
  const equality = leftAssociative(['==='], relational);
  const logicalAnd = (first: Run): Run => {
    let left = first;
    while (peek('&&')) {
      position++;
      left = binary('&&', left, equality());
    }
    return left;
  };
  const shortCircuit = (): Run => {
    const first = equality();
    if (peek('??')) {
      let left = first;
      while (peek('??')) {
        position++;
        left = binary('??', left, equality());
      }
      if (peek('||') || peek('&&')) throw new PastedSyntaxError('"??" mixed with "||" or "&&"');
      return left;
    }
    let left = logicalAnd(first);
    while (peek('||')) {
      position++;
      left = binary('||', left, logicalAnd(equality()));
    }
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

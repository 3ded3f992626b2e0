import { describe, expect, it } from 'vitest';
import { newFrame } from './node.ts';
import { literal, op, PastedSyntaxError, parseTokens, type Token } from './precedence.ts';

const run = (tokens: Token[]) => parseTokens(tokens)({}, [], newFrame());

describe('parseTokens', () => {
  it.each([
    [
      '`a ? b : c || d` binds || to the else branch',
      [literal(false), op('?'), literal('b'), op(':'), literal(null), op('||'), literal('d')],
      'd',
    ],
    [
      '`a ? b : c || d` keeps a falsy then branch',
      [literal(true), op('?'), literal(0), op(':'), literal(null), op('||'), literal('d')],
      0,
    ],
    [
      '`x ?? a ? b : c` tests the coalesced value',
      [literal('x'), op('??'), literal(false), op('?'), literal('b'), op(':'), literal('c')],
      'b',
    ],
    [
      '`"" + a ? b : c` concatenates before testing',
      [literal(''), op('+'), literal(''), op('?'), literal('b'), op(':'), literal('c')],
      'c',
    ],
    [
      '`1 - 2 < 0 ? a : b`',
      [literal(1), op('-'), literal(2), op('<'), literal(0), op('?'), literal('a'), op(':'), literal('b')],
      'a',
    ],
    ['`a && b === c`', [literal(true), op('&&'), literal(1), op('==='), literal(1)], true],
    [
      '`a ? b : c ? d : e` nests to the right',
      [literal(false), op('?'), literal(1), op(':'), literal(true), op('?'), literal(2), op(':'), literal(3)],
      2,
    ],
  ] as const)('%s', (_name, tokens, expected) => {
    expect(run([...tokens])).toBe(expected);
  });

  it('short-circuits like JavaScript', () => {
    let evaluated = false;
    const spy: Token = {
      atom: () => {
        evaluated = true;
        return 1;
      },
    };
    expect(run([literal('x'), op('||'), spy])).toBe('x');
    expect(evaluated).toBe(false);
  });

  it.each([
    ['?? next to ||', [literal(1), op('??'), literal(2), op('||'), literal(3)]],
    ['|| next to ??', [literal(1), op('||'), literal(2), op('??'), literal(3)]],
    ['?? next to &&', [literal(1), op('??'), literal(2), op('&&'), literal(3)]],
    ['a missing ":"', [literal(1), op('?'), literal(2)]],
    ['two operators in a row', [literal(1), op('+'), op('+'), literal(2)]],
  ] as const)('refuses %s, which is not JavaScript', (_name, tokens) => {
    expect(() => parseTokens([...tokens])).toThrow(PastedSyntaxError);
  });
});

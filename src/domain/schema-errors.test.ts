import { Ajv } from 'ajv';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { schemaErrors } from './schema-errors.ts';

const ajv = new Ajv({ allErrors: true, strict: false });
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const Rules = Type.Object(
  {
    rules: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object(
            { type: Type.String({ enum: ['attribute', 'segment'] }), value: Type.Optional(Scalar) },
            { required: ['type'], additionalProperties: false },
          ),
        ),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);
const validate = ajv.compile(Rules);
const errorsOf = (value: unknown) => {
  expect(validate(value)).toBe(false);
  return schemaErrors(validate.errors ?? []);
};

describe('schemaErrors', () => {
  it.each<[string, unknown, { path: string; message: string }[]]>([
    [
      'a value of none of its types',
      { rules: [{ type: 'attribute', value: ['BE'] }] },
      [{ path: '/rules/0/value', message: 'must be string, number or boolean' }],
    ],
    ['a missing field', { rules: [{ value: 'BE' }] }, [{ path: '/rules/0/type', message: 'is required' }]],
    [
      'a value not in its list',
      { rules: [{ type: 'attribut' }] },
      [{ path: '/rules/0/type', message: 'must be one of "attribute", "segment"' }],
    ],
    [
      'a field of neither alternative',
      { rules: 'all' },
      [{ path: '/rules', message: 'must be array or null' }],
    ],
    ['an unknown field', { rulez: [] }, [{ path: '/rulez', message: 'unknown field "rulez"' }]],
  ])('names only the error that matters in %s', (_, value, expected) => {
    expect(errorsOf(value)).toEqual(expected);
  });

  it('keeps every problem of the alternative it came closest to', () => {
    expect(errorsOf({ rules: [{ value: ['BE'] }, { type: 'segment', extra: 1 }] })).toEqual([
      { path: '/rules/0/type', message: 'is required' },
      { path: '/rules/0/value', message: 'must be string, number or boolean' },
      { path: '/rules/1/extra', message: 'unknown field "extra"' },
    ]);
  });
});

import { expect, it } from 'vitest';
import { besideField } from './field.tsx';

it("the API's words after a field's name stand alone beside the field", () => {
  expect(besideField('is required')).toBe('Required');
  expect(besideField('must be at most 200 characters')).toBe('Must be at most 200 characters');
  expect(besideField('is empty: enter a value or remove it')).toBe('Empty: enter a value or remove it');
  expect(besideField('unknown field "nmae"')).toBe('Unknown field "nmae"');
});

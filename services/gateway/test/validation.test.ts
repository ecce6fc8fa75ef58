// Validation wording of the HTTP layer: zod issues as the envelope's field messages, and which
// text the stores can keep.
import { z } from 'zod';
import { issuesToFields, isStorableText } from '../src/http/validation';

describe('validation wording', () => {
  const schema = z.strictObject({
    name: z.string().min(1),
    nested: z.object({ size: z.number().max(3) }).optional(),
    kind: z.enum(['a', 'b']).optional(),
  });
  const fieldsFor = (value: unknown) => {
    const result = schema.safeParse(value, { reportInput: true });
    return result.success ? {} : issuesToFields('body', result.error.issues);
  };

  it('names nested fields, missing fields, unknown fields and enum choices', () => {
    expect(fieldsFor({ nested: { size: 9 }, kind: 'c', other: 1 })).toEqual({
      name: 'is required',
      'nested.size': 'must be at most 3',
      kind: 'must be one of: a, b',
      other: 'is not a known field',
    });
    expect(fieldsFor({ name: 5 })).toEqual({ name: 'must be a string' });
    expect(fieldsFor('text')).toEqual({ body: 'must be an object' });
  });
});

describe('storable text', () => {
  it.each([
    ['plain text', 'plain', true],
    ['a surrogate pair', 'emoji 🏠', true],
    ['NUL', 'nul \u0000', false],
    ['a lone high surrogate', 'high \ud800 alone', false],
    ['a lone low surrogate', 'low \udc00 alone', false],
  ])('%s', (_label, text, ok) => {
    expect(isStorableText(text)).toBe(ok);
  });
});

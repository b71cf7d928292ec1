import { describe, expect, it } from 'vitest';
import { inputSchemaStaticProblem, manifestSchemaStaticProblems } from './schema-problems.js';
import { SCHEMA_VALUES_MAX } from './schema-size.js';

const entry = (input_schema: unknown) => ({ name: 't', input_schema, risk_traits: [] });

describe('the static check of tool input schemas', () => {
  it('points at an unbounded uniqueItems, even under a property named like a keyword', () => {
    const schema = {
      type: 'object',
      properties: { default: { type: 'array', uniqueItems: true } },
    };
    expect(manifestSchemaStaticProblems([entry({ type: 'object' }), entry(schema)])).toEqual([
      {
        code: 'tool_manifest_invalid',
        pointer: '/tool_manifest/1/input_schema/properties/default/uniqueItems',
        message: expect.stringContaining('maxItems of at most 1000'),
      },
    ]);
  });

  it('points at a costly pattern, and asks the engine first when given one', () => {
    const schema = {
      patternProperties: { 'a{300}': {} },
      properties: { p: { pattern: '(a)\\1' } },
    };
    expect(inputSchemaStaticProblem(schema, '/s')?.pointer).toBe('/s/patternProperties/a{300}');
    const refused = inputSchemaStaticProblem(schema, '/s', {
      refusedPattern: (pattern) => (pattern.includes('\\1') ? 'backreference' : null),
    });
    expect(refused?.pointer).toBe('/s/patternProperties/a{300}');
    expect(
      inputSchemaStaticProblem({ pattern: '(a)\\1' }, '/s', {
        refusedPattern: () => 'backreference',
      }),
    ).toEqual({ code: 'tool_manifest_invalid', pointer: '/s/pattern', message: 'backreference' });
  });

  it('refuses a schema past the size bound at the schema, not counting annotations', () => {
    const values = Array.from({ length: SCHEMA_VALUES_MAX }, (_, i) => i);
    expect(inputSchemaStaticProblem({ enum: values }, '/s')?.pointer).toBe('/s');
    expect(inputSchemaStaticProblem({ examples: values }, '/s')).toBeNull();
  });

  it('leaves what is not a list of object schemas to the shape check', () => {
    expect(manifestSchemaStaticProblems({})).toEqual([]);
    expect(manifestSchemaStaticProblems([null, entry(true), entry([])])).toEqual([]);
  });
});

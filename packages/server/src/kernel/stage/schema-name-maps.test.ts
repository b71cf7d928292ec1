import { describe, expect, it } from 'vitest';
import { SCHEMA_VALUES_MAX, schemaValues } from './schema-cost.js';
import { manifestSchemaProblems } from './tool-input-schema.js';

/*
 * Under `properties` and the other name maps a key is a name: a property called `default`,
 * `title` or `enum` is a subschema like any other. Read as the keyword of that name, it hid
 * its subschema from the declaration's checks: an unbounded uniqueItems over objects (66 s of
 * the kernel's thread for 30,000 items), or a 6,000-value enum past the size bound.
 */
const owner = { workspaceId: 'ws_names', applicationId: null };
const declare = (input_schema: Record<string, unknown>) =>
  manifestSchemaProblems(owner, [{ name: 't', input_schema, risk_traits: [] }]);
const unboundedUnique = { type: 'array', uniqueItems: true };
const bigEnum = {
  type: 'array',
  items: { enum: Array.from({ length: 2 * SCHEMA_VALUES_MAX }, (_, i) => i) },
};

describe('a schema property named like a keyword', () => {
  for (const [map, name] of [
    ['properties', 'default'],
    ['properties', 'enum'],
    ['properties', 'examples'],
    ['patternProperties', 'const'],
    ['$defs', 'default'],
    ['definitions', 'enum'],
  ] as const) {
    it(`is checked as a subschema: ${map}/${name} with unbounded uniqueItems`, () => {
      expect(declare({ type: 'object', [map]: { [name]: unboundedUnique } })).toEqual([
        expect.objectContaining({
          code: 'tool_manifest_invalid',
          pointer: `/tool_manifest/0/input_schema/${map}/${name}/uniqueItems`,
        }),
      ]);
    });
  }

  for (const name of ['title', 'description', 'default', 'examples', '$comment']) {
    it(`counts toward the size bound: properties/${name}`, () => {
      const schema = { type: 'object', properties: { [name]: bigEnum } };
      expect(schemaValues(schema)).toBeGreaterThan(2 * SCHEMA_VALUES_MAX);
      expect(declare(schema)).toEqual([
        expect.objectContaining({
          pointer: '/tool_manifest/0/input_schema',
          message: expect.stringContaining(`at most ${SCHEMA_VALUES_MAX} are accepted`),
        }),
      ]);
    });
  }

  it('is not read as a keyword: a property called uniqueItems or pattern is no problem', () => {
    expect(
      declare({
        type: 'object',
        properties: { uniqueItems: { type: 'boolean' }, pattern: { type: 'string' } },
      }),
    ).toEqual([]);
    // The annotations themselves still cost nothing.
    expect(schemaValues({ type: 'string', description: 'x'.repeat(10), examples: [1, 2, 3] })).toBe(
      2,
    );
  });
});

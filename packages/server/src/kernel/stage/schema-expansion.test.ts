import { describe, expect, it } from 'vitest';
import { expandedSchemaCost, nestingDepth } from './schema-expansion.js';
import { inputSchemaProblems, manifestSchemaProblems } from './tool-input-schema.js';

const owner = { workspaceId: 'ws_refs', applicationId: null };
const entry = (input_schema: Record<string, unknown>) => ({
  name: 'tool',
  input_schema,
  risk_traits: [],
});
const check = (input_schema: Record<string, unknown>, input: unknown) =>
  inputSchemaProblems(owner, entry(input_schema), input);

/** Definitions each naming the next twice, the first use failing only after applying it. */
function doublingChain(length: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < length; i++) {
    const next = i + 1 < length ? { $ref: `#/$defs/d${i + 1}` } : { type: 'string' };
    $defs[`d${i}`] = { anyOf: [{ allOf: [next, false] }, next] };
  }
  return { $ref: '#/$defs/d0', $defs };
}

/** A recursive schema applying itself twice per level of nesting. */
const doublingRecursion = {
  anyOf: [{ allOf: [{ items: { $ref: '#' } }, false] }, { items: { $ref: '#' } }],
};

/** An array nested `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** A tree of named nodes, recursive through a definition, as tool schemas declare them. */
const tree = {
  $ref: '#/$defs/node',
  $defs: {
    node: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/$defs/node' } },
      },
    },
  },
};

describe('a schema whose $refs apply a subschema many times over', () => {
  it('refuses, as data and at once, a call a chain of doubling definitions would apply 2^22 times', () => {
    const schema = doublingChain(22);
    expect(manifestSchemaProblems(owner, [entry(schema)])).toEqual([]);
    expect(check(schema, 'x')).toMatch(/too costly to check against the schema of tool/);
    // A short chain costs little, and is checked as before.
    expect(check(doublingChain(4), 'x')).toBeNull();
    expect(check(doublingChain(4), 7)).toMatch(/must be string/);
  });

  it('refuses a recursion doubling per level only once the input nests deep enough to cost', () => {
    expect(check(doublingRecursion, nested(26))).toMatch(/nesting 26 levels deep/);
    expect(check(doublingRecursion, nested(8))).toBeNull();
  });

  it('checks a recursive tree as deep as the input nests, at a cost linear in its depth', () => {
    let node: Record<string, unknown> = { name: 'leaf' };
    for (let i = 0; i < 28; i++) node = { name: `n${i}`, children: [node] };
    expect(check(tree, node)).toBeNull();
    expect(check(tree, { name: 'root', children: [{}] })).toMatch(/required property 'name'/);
    expect(expandedSchemaCost(tree, 60, 1_000_000)).toBeLessThan(1000);
  });

  it('follows a $ref through the $id it names, and counts one it cannot follow past any bound', () => {
    const byId = {
      $id: 'https://example.com/tool.json',
      definitions: { path: { type: 'string' } },
      properties: { path: { $ref: 'https://example.com/tool.json#/definitions/path' } },
    };
    expect(check(byId, { path: 'a' })).toBeNull();
    expect(check(byId, { path: 1 })).toMatch(/must be string/);
    expect(expandedSchemaCost({ $ref: '#nowhere' }, 0, 100)).toBe(101);
    // A loop that never reaches a nested value could not be applied at all.
    expect(expandedSchemaCost({ $ref: '#' }, 3, 100)).toBe(101);
  });

  it('measures nesting as arrays and objects inside each other', () => {
    expect([1, [], [[1]], { a: { b: 'c' } }].map(nestingDepth)).toEqual([0, 1, 2, 2]);
  });
});

/**
 * What a tool's input schema can cost the kernel's thread at the bounds of
 * kernel/stage/schema-cost.ts: for each shape that grows ajv's work fastest,
 * sized just under 3,000 JSON values, the time to declare it (the meta-schema
 * check and the compile) and to check the largest input the budget lets
 * through, beside an ordinary ten-property schema and input; then schemas whose `$ref`s
 * recurse, on nested inputs (schema-expansion.ts counts them as applied).
 *
 *   pnpm --filter @airlock/server bench:schema-cost
 */
import { CHECK_BUDGET, schemaValues } from '../src/kernel/stage/schema-cost.js';
import {
  inputSchemaProblems,
  manifestSchemaProblems,
  prepareSchemaChecks,
} from '../src/kernel/stage/tool-input-schema.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

interface Shape {
  schema: Record<string, unknown>;
  /** One item of the input array (the input is as many as the budget allows). */
  item: () => unknown;
}

const ORDINARY: Record<string, unknown> = {
  type: 'object',
  required: ['command'],
  properties: Object.fromEntries(
    range(10).map((i) => [`field${i}`, { type: 'string', description: 'what it is for' }]),
  ),
};

const SHAPES: Record<string, Shape> = {
  'oneOf of objects': {
    schema: {
      type: 'array',
      items: {
        oneOf: range(370).map((i) => ({
          type: 'object',
          required: [`k${i}`],
          properties: { [`k${i}`]: { type: 'string', minLength: 3 } },
        })),
      },
    },
    item: () => ({ k369: 'abcd' }),
  },
  'anyOf, last branch matches': {
    schema: {
      type: 'array',
      items: { anyOf: range(700).map((i) => ({ type: 'object', required: [`k${i}`] })) },
    },
    item: () => ({ k699: 1 }),
  },
  'enum of objects': {
    schema: { type: 'array', items: { enum: range(990).map((a) => ({ a })) } },
    item: () => ({ a: 989 }),
  },
  'allOf that fails': {
    schema: { type: 'array', items: { allOf: range(1480).map(() => ({ type: 'string' })) } },
    item: () => 1,
  },
  'properties, nested': {
    schema: {
      type: 'object',
      properties: Object.fromEntries(
        range(590).map((i) => [
          `p${i}`,
          { type: 'object', properties: { v: { type: 'integer' } } },
        ]),
      ),
    },
    item: () => ({ p1: { v: 1 } }),
  },
};

const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1]!;

function declareMs(schema: Record<string, unknown>, round: number): number {
  // A fresh owner each time: compiled validators are cached per owner.
  const owner = { workspaceId: `ws_bench_${round}_${Math.random()}`, applicationId: null };
  const started = performance.now();
  const problems = manifestSchemaProblems(owner, [{ name: 't', input_schema: schema }]);
  const took = performance.now() - started;
  if (problems.length > 0) throw new Error(JSON.stringify(problems));
  return took;
}

function checkMs(
  schema: Record<string, unknown>,
  input: unknown,
): { ms: number; refused: boolean } {
  const owner = { workspaceId: 'ws_bench_check', applicationId: null };
  const entry = { name: 't', input_schema: schema, risk_traits: [] };
  inputSchemaProblems(owner, entry, input);
  const started = performance.now();
  const problems = inputSchemaProblems(owner, entry, input);
  return { ms: performance.now() - started, refused: problems !== null };
}

prepareSchemaChecks();
const rows: string[][] = [['schema', 'values', 'declare ms', 'input values', 'check ms', 'check']];
const measure = (name: string, schema: Record<string, unknown>, input: unknown, count: number) => {
  const declared = median(range(5).map((round) => declareMs(schema, round)));
  const checked = checkMs(schema, input);
  rows.push([
    name,
    String(schemaValues(schema)),
    declared.toFixed(1),
    String(count),
    checked.ms.toFixed(1),
    checked.refused ? 'refused' : 'passed',
  ]);
};

measure('ordinary (10 properties)', ORDINARY, { command: 'ls', field1: 'x' }, 4);
for (const [name, shape] of Object.entries(SHAPES)) {
  const values = schemaValues(shape.schema);
  const perItem = schemaValues(shape.item());
  // The largest input the budget lets through: the array, its items and their values.
  const items = Math.floor((Math.floor(CHECK_BUDGET / values) - 1) / perItem);
  const input =
    name === 'properties, nested'
      ? Object.fromEntries(range(Math.min(590, items)).map((i) => [`p${i}`, { v: i }]))
      : range(items).map(shape.item);
  measure(name, shape.schema, input, schemaValues(input));
}
// References: a recursion applying itself twice per level (refused once the input nests deep
// enough to cost), and a tree recursing once per level, at the deepest input a model may send.
const doubling = {
  anyOf: [{ allOf: [{ items: { $ref: '#' } }, false] }, { items: { $ref: '#' } }],
};
const nestedArrays = (depth: number) => {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
};
for (const depth of [8, 40]) {
  measure(`recursion doubling, depth ${depth}`, doubling, nestedArrays(depth), depth);
}
const tree = {
  $ref: '#/$defs/node',
  $defs: {
    node: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/$defs/node' } },
      },
    },
  },
};
let node: Record<string, unknown> = { name: 'leaf' };
for (let level = 0; level < 30; level++) node = { name: `n${level}`, children: [node] };
measure('recursive tree, depth 61', tree, node, schemaValues(node));
const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));

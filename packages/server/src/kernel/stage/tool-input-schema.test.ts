import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CHECK_BUDGET, SCHEMA_VALUES_MAX } from './schema-cost.js';
import { linearRegExp } from './schema-regexp.js';
import {
  inputSchemaProblems,
  manifestSchemaProblems,
  prepareSchemaChecks,
} from './tool-input-schema.js';

/** What ajv answers when it checks and compiles a schema alone, as every declaration once did. */
function ajvAlone(schema: Record<string, unknown>): string | null {
  try {
    new Ajv({
      allErrors: true,
      strict: false,
      validateSchema: true,
      logger: false,
      code: { regExp: linearRegExp },
    }).compile(schema);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const SCHEMAS: Record<string, Record<string, unknown>> = {
  valid: { type: 'object', required: ['command'], properties: { command: { type: 'string' } } },
  'valid, naming draft-07': { $schema: DRAFT_07, type: 'object' },
  'valid, naming draft-07 without #': { $schema: DRAFT_07.slice(0, -1), type: 'string' },
  'valid, naming the unversioned id': { $schema: 'http://json-schema.org/schema', type: 'string' },
  'wrong type name': { type: 'strnig' },
  'two problems': { type: 'object', required: 'command', minProperties: -1 },
  'wrong type name, naming draft-07': { $schema: DRAFT_07, type: 7 },
  'an unknown meta-schema': { $schema: 'https://example.com/meta', type: 'object' },
  'a meta-schema that is not text': { $schema: 7, type: 'object' },
  'its own meta-schema': { $id: 'urn:self', $schema: 'urn:self', type: 'object' },
  'an $id and a $ref to it': {
    $id: 'urn:tool',
    definitions: { path: { type: 'string' } },
    properties: { path: { $ref: 'urn:tool#/definitions/path' } },
  },
  'a $ref to nothing': { properties: { path: { $ref: '#/definitions/missing' } } },
  'a pattern': { properties: { path: { type: 'string', pattern: '^src/' } } },
};

describe('manifest schema checks against the shared draft-07 meta-schema', () => {
  prepareSchemaChecks();

  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`answers what ajv alone answers: ${name}`, () => {
      const expected = ajvAlone(schema);
      const problems = manifestSchemaProblems({ workspaceId: `ws-${name}`, applicationId: null }, [
        { name: 'tool', input_schema: schema },
      ]);
      if (expected === null) {
        expect(problems).toEqual([]);
      } else {
        expect(problems).toEqual([
          {
            code: 'tool_manifest_invalid',
            pointer: '/tool_manifest/0/input_schema',
            message: `the input_schema does not compile as a JSON Schema (draft-07, or the 2019-09 or 2020-12 its $schema names): ${expected}`,
          },
        ]);
      }
    });
  }

  it('refuses a broken schema again for another owner, with the same message', () => {
    const schema = { type: 'strnig' };
    const first = manifestSchemaProblems({ workspaceId: 'ws-a', applicationId: null }, [
      { name: 'tool', input_schema: schema },
    ]);
    const second = manifestSchemaProblems({ workspaceId: 'ws-b', applicationId: 'app' }, [
      { name: 'tool', input_schema: schema },
    ]);
    expect(first).toHaveLength(1);
    expect(second).toEqual(first);
  });
});

describe("schemas naming JSON Schema 2020-12 (MCP's default) or 2019-09", () => {
  const owner = { workspaceId: 'ws-later', applicationId: null };
  const entry = (input_schema: Record<string, unknown>) => ({
    name: 'read_file',
    input_schema,
    risk_traits: [],
  });

  it('compile and check calls with the draft they name, prefixItems and $defs included', () => {
    for (const $schema of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2020-12/schema#',
    ]) {
      const schema = {
        $schema,
        type: 'object',
        required: ['path', 'range'],
        properties: {
          path: { $ref: '#/$defs/path' },
          range: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'integer' }] },
        },
        $defs: { path: { type: 'string', minLength: 1 } },
        unevaluatedProperties: false,
      };
      expect(manifestSchemaProblems(owner, [entry(schema)])).toEqual([]);
      const good = { path: 'a.txt', range: [1, 2] };
      expect(inputSchemaProblems(owner, entry(schema) as never, good)).toBeNull();
      expect(inputSchemaProblems(owner, entry(schema) as never, { ...good, range: ['x'] })).toMatch(
        /range/,
      );
      expect(
        inputSchemaProblems(owner, entry(schema) as never, { ...good, extra: true }),
      ).not.toBeNull();
    }
    const draft2019 = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { n: { type: 'integer' } },
    };
    expect(manifestSchemaProblems(owner, [entry(draft2019)])).toEqual([]);
    expect(inputSchemaProblems(owner, entry(draft2019) as never, { n: 'x' })).not.toBeNull();
  });

  it('refuses a 2020-12 schema its meta-schema refuses, naming the draft', () => {
    const [problem] = manifestSchemaProblems(owner, [
      entry({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'strnig' }),
    ]);
    expect(problem).toMatchObject({ code: 'tool_manifest_invalid' });
    expect(problem?.message).toMatch(/2020-12/);
  });
});

describe('schemas that would make checking a call cost seconds', () => {
  const owner = { workspaceId: 'ws_1', applicationId: null };
  const problemsOf = (input_schema: Record<string, unknown>) =>
    manifestSchemaProblems(owner, [{ name: 't', input_schema, risk_traits: [] }]);

  it('refuses uniqueItems compared pair by pair over an unbounded array', () => {
    const [unbounded] = problemsOf({
      type: 'object',
      properties: { a: { type: 'array', uniqueItems: true } },
    });
    expect(unbounded).toMatchObject({
      code: 'tool_manifest_invalid',
      pointer: '/tool_manifest/0/input_schema/properties/a/uniqueItems',
    });
    expect(unbounded?.message).toContain('maxItems of at most 1000');
    // A hash serves scalar items; a bound keeps the pairs few.
    expect(problemsOf({ type: 'array', uniqueItems: true, items: { type: 'integer' } })).toEqual(
      [],
    );
    expect(
      problemsOf({ type: 'array', uniqueItems: true, items: { type: ['string', 'null'] } }),
    ).toEqual([]);
    expect(problemsOf({ type: 'array', uniqueItems: true, maxItems: 500 })).toEqual([]);
  });

  it('refuses a pattern whose counted repetitions make it large, and keeps the usual ones', () => {
    const heavy = `${'[a-z]{1000}'.repeat(10)}[0-9]`;
    const [problem] = problemsOf({ type: 'string', pattern: heavy });
    expect(problem?.pointer).toBe('/tool_manifest/0/input_schema/pattern');
    expect(problem?.message).toContain('counted repetitions add up to 10000');
    const uuid = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    expect(problemsOf({ type: 'string', pattern: uuid })).toEqual([]);
    expect(problemsOf({ type: 'string', pattern: 'x'.repeat(2000) })[0]?.message).toContain(
      'at most 1024 characters',
    );
  });

  it('does not try a pattern on a text past 64 KiB: it throws', () => {
    const any = linearRegExp('^a*$');
    expect(any.test('a'.repeat(65_536))).toBe(true);
    expect(() => any.test('a'.repeat(65_537))).toThrow(/tried on at most 65536/);
  });

  it('refuses a call whose string is too long for a pattern the schema guards with, never lets it through', () => {
    const owner = { workspaceId: 'ws_pattern_text', applicationId: null };
    const check = (input_schema: Record<string, unknown>, input: unknown) =>
      inputSchemaProblems(owner, { name: 'bash', input_schema, risk_traits: [] }, input);
    const guarded = {
      type: 'object',
      properties: { command: { type: 'string', not: { pattern: 'rm -rf' } } },
    };
    const long = `rm -rf / ${' '.repeat(70_000)}`;
    expect(check(guarded, { command: 'rm -rf /' })).toContain('must NOT be valid');
    expect(check(guarded, { command: long })).toMatch(
      /^the input could not be checked against the schema of bash: a string of 70009 characters .* send a shorter string$/,
    );
    // A property name is a text a pattern reads too: past the bound it cannot slip a constraint.
    const named = { type: 'object', patternProperties: { '^x': { type: 'string' } } };
    expect(check(named, { xy: 1 })).toContain('must be string');
    expect(check(named, { [`x${'y'.repeat(70_000)}`]: 1 })).toContain('could not be checked');
    expect(check(guarded, { command: 'ls' })).toBeNull();
  });
});

describe('the cost of checking a call is bounded by the schema and input sizes', () => {
  const owner = { workspaceId: 'ws_cost', applicationId: null };
  const declare = (input_schema: Record<string, unknown>) =>
    manifestSchemaProblems(owner, [{ name: 'tool', input_schema, risk_traits: [] }]);
  const check = (input_schema: Record<string, unknown>, input: unknown) =>
    inputSchemaProblems(owner, { name: 'tool', input_schema, risk_traits: [] }, input);
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('refuses a schema of more JSON values than it compiles, not counting its annotations', () => {
    const big = { type: 'array', items: { enum: range(SCHEMA_VALUES_MAX) } };
    expect(declare(big)).toEqual([
      {
        code: 'tool_manifest_invalid',
        pointer: '/tool_manifest/0/input_schema',
        message: expect.stringContaining(`at most ${SCHEMA_VALUES_MAX} are accepted`),
      },
    ]);
    // The same number of properties with long descriptions: the descriptions are not checks.
    const documented = {
      type: 'object',
      properties: Object.fromEntries(
        range(300).map((i) => [`p${i}`, { type: 'string', description: 'x '.repeat(20) }]),
      ),
    };
    expect(declare(documented)).toEqual([]);
    // A call of a tool whose declared schema is too large is refused as data, never compiled.
    expect(check(big, [1])).toContain(`at most ${SCHEMA_VALUES_MAX} are accepted`);
  });

  it('refuses an input whose size times the schema size is past the budget, before ajv runs', () => {
    const schema = { type: 'array', items: { enum: range(2000) } };
    expect(declare(schema)).toEqual([]);
    const allowed = Math.floor(CHECK_BUDGET / 2004);
    // An enum of 2,000 over 400,000 items: 800 million comparisons, minutes of the kernel's thread.
    const refused = check(
      schema,
      range(400_000).map(() => -1),
    );
    expect(refused).toContain('the input is too large to check against the schema of tool');
    expect(refused).toContain(`more than ${allowed} JSON values`);
    // Under the budget the input is checked as before.
    expect(check(schema, range(400))).toBeNull();
    expect(check(schema, [...range(10), -1])).toContain(
      '/10 must be equal to one of the allowed values',
    );
  });

  it('lists every problem of a small input, only the first once listing them all would cost', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
    };
    const small = check(schema, { a: 1, b: 'x' });
    expect(small).toContain('/a must be string');
    expect(small).toContain('/b must be integer');
    // An allOf of 300 failing subschemas over 1,000 items made 300,000 error objects.
    const every = { type: 'array', items: { allOf: range(300).map(() => ({ type: 'string' })) } };
    const large = check(every, range(1000));
    expect(large).toBe('the input does not match the schema of tool: /0 must be string');
  });

  it('refuses, rather than throws, an input nested past what the generated code recurses', () => {
    const nested = {
      definitions: {
        n: { anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#/definitions/n' } }] },
      },
      $ref: '#/definitions/n',
    };
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i += 1) deep = [deep];
    expect(check(nested, deep)).toMatch(
      /could not be checked against the schema of tool|too large to check/,
    );
    expect(check(nested, [[[1]]])).toBeNull();
  });
});

import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { linearRegExp } from './schema-regexp.js';
import { manifestSchemaProblems, prepareSchemaChecks } from './tool-input-schema.js';

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
            message: `the input_schema does not compile as a JSON Schema (draft-07): ${expected}`,
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

  it('does not try a pattern on a text past 64 KiB: it does not match', () => {
    const any = linearRegExp('^a*$');
    expect(any.test('a'.repeat(65_536))).toBe(true);
    expect(any.test('a'.repeat(65_537))).toBe(false);
  });
});

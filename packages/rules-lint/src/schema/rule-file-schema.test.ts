import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ruleFileSchema } from './rule-file-schema.js';

describe('the rule file schema', () => {
  const schema = ruleFileSchema() as { $defs: Record<string, Record<string, unknown>> };

  it("is generated from core: the rule shape carries core's keys, enums and strictness", () => {
    const ruleList = schema.$defs.rule_list as {
      items: {
        properties: Record<string, { enum?: string[] }>;
        required: string[];
        additionalProperties: boolean;
      };
    };
    expect(Object.keys(ruleList.items.properties).sort()).toEqual([
      'match',
      'origin',
      'path',
      'reason',
      'tool',
      'verdict',
    ]);
    expect(ruleList.items.properties.verdict?.enum).toEqual(['allow', 'ask', 'deny']);
    expect(ruleList.items.required).toEqual(['tool', 'verdict']);
    expect(ruleList.items.additionalProperties).toBe(false);
  });

  it("lets a profile carry $schema and examples beside core's keys", () => {
    const properties = schema.$defs.profile_configuration?.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(
      expect.arrayContaining([
        '$schema',
        'approval_mode',
        'approval_rules',
        'tool_names',
        'tool_aliases',
        'lifecycle_hooks',
        'examples',
      ]),
    );
    expect(schema.$defs.profile_configuration?.additionalProperties).toBe(false);
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});

describe('the rule file schema, validating files', () => {
  // JSON Schema 2020-12, as editors read it.
  const validate = new Ajv2020.default({ strict: false, allErrors: true }).compile(
    ruleFileSchema(),
  );
  const rule = { tool: 'bash', verdict: 'deny' };

  it.each([
    ['a plain rule list', [rule], true],
    ['a rule with path and match', [{ ...rule, path: 'edits.0.path', match: '*.env' }], true],
    ['match without path', [{ ...rule, match: '*.env' }], false],
    ['an empty path segment', [{ ...rule, path: 'edits..path' }], false],
    ['a trailing dot in path', [{ ...rule, path: 'command.' }], false],
    ['an empty tool alternative', [{ ...rule, tool: 'bash|' }], false],
    ['a doubled bar', [{ ...rule, tool: 'bash||sh' }], false],
    ['an empty tool', [{ ...rule, tool: '' }], false],
    [
      'a profile',
      {
        approval_mode: 'ask',
        approval_rules: [rule],
        examples: [{ tool: 'bash', expect: 'denied' }],
      },
      true,
    ],
    ['a profile rule with match and no path', { approval_rules: [{ ...rule, match: 'x' }] }, false],
    [
      'hooks without a mode',
      { lifecycle_hooks: { turn_start: { tool: 'check', timeout_ms: 1000 } } },
      false,
    ],
    [
      'hooks with a mode',
      {
        approval_mode: 'rules',
        lifecycle_hooks: { turn_start: { tool: 'check', timeout_ms: 1000 } },
      },
      true,
    ],
    ['an empty alias key', { tool_aliases: { '': 'bash' } }, false],
    ['an alias', { tool_aliases: { shell: 'bash' } }, true],
  ])('%s: valid is %s', (_name, value, expected) => {
    expect(validate(value), JSON.stringify(validate.errors)).toBe(expected);
  });
});

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

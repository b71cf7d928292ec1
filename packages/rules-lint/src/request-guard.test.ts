import { describe, expect, it } from 'vitest';
import { lintText } from './lint.js';
import { readRuleFile } from './rule-file.js';

/** Each declaration finding of a text: code, pointer and where it starts (line:column). */
function declarationFindings(text: string): string[] {
  const outcome = lintText('agent.json', text);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.findings
    .filter((finding) => finding.source === 'declaration')
    .map(
      (finding) =>
        `${finding.code} ${finding.pointer} ${finding.location.line}:${finding.location.column}`,
    );
}

/** A profile whose one tool's input_schema is `schema` (JSON text), on a line of its own. */
const profileWith = (schema: string) =>
  `{"approval_mode": "rules", "approval_rules": [], "tool_manifest": [\n  {"name": "t", "risk_traits": ["read"], "input_schema": ${schema}}]}`;

describe("the kernel's guard on every request, for a profile file", () => {
  it('refuses nesting past 64 levels at the first value past the bound, and keeps 64', () => {
    // The profile is level 1, tool_manifest 2, its entry 3, input_schema 4, items 5: 61
    // brackets reach 65, and the finding points at the 61st.
    const nested = (levels: number) => `{"items": ${'['.repeat(levels)}${']'.repeat(levels)}}`;
    expect(declarationFindings(profileWith(nested(60)))).toEqual([]);
    const deep = profileWith(nested(61));
    expect(declarationFindings(deep)).toEqual([
      `input_too_deep /tool_manifest/0/input_schema/items${'/0'.repeat(60)} 2:128`,
    ]);
    expect(readRuleFile(JSON.parse(deep)).policy).toBeUndefined();
  });

  it('refuses a __proto__ key at any depth at the key, once where core calls it unknown', () => {
    const nested = profileWith(
      '{"type": "object", "properties": {"__proto__": {"type": "string"}}}',
    );
    expect(declarationFindings(nested)).toEqual([
      'unrecognized_keys /tool_manifest/0/input_schema/properties/__proto__ 2:92',
    ]);
    const top = '{"approval_mode": "rules", "__proto__": {}}';
    expect(declarationFindings(top).map((line) => line.split(' ')[0])).toEqual(['unknown_key']);
  });

  it('leaves the keys a file keeps from the kernel alone', () => {
    const examples = `{"approval_mode": "bypass", "examples": [{"tool": "t", "input": ${'['.repeat(70)}${']'.repeat(70)}, "expect": "granted"}]}`;
    expect(declarationFindings(examples).filter((line) => line.startsWith('input_too'))).toEqual(
      [],
    );
  });
});

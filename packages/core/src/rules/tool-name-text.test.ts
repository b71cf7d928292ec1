import { describe, expect, it } from 'vitest';
import { validateToolManifest } from '../permissions/validate-permissions.js';
import { validateProfileConfiguration } from './validate-profile.js';

function problemsOf(input: unknown) {
  const result = validateProfileConfiguration(input);
  return result.ok ? [] : result.problems.map(({ code, pointer }) => ({ code, pointer }));
}

const manifestEntry = (name: string) => ({ name, input_schema: {}, risk_traits: [] });

describe('declared tool names hold no hidden characters', () => {
  const hidden = [
    ['a C0 control', 'deploy\u0007'],
    ['a tab', 'de\tploy'],
    ['a newline', 'deploy\nrm'],
    ['DEL', 'deploy\u007f'],
    ['a C1 control', '\u009bdeploy'],
    ['a bidi override', 'read\u202eyolpeD'],
    ['a bidi isolate', '\u2066deploy\u2069'],
    ['a zero-width space', 'de\u200bploy'],
    ['a byte order mark', '\ufeffdeploy'],
  ] as const;

  it.each(hidden)(
    'refuses %s in tool_names, tool_aliases and tool_manifest, with a pointer',
    (_, name) => {
      expect(problemsOf({ tool_names: ['read', name] })).toEqual([
        { code: 'tool_name_hidden_character', pointer: '/tool_names/1' },
      ]);
      expect(problemsOf({ tool_aliases: { [name]: 'read' } })).toEqual([
        { code: 'tool_name_hidden_character', pointer: `/tool_aliases/${name}` },
      ]);
      expect(problemsOf({ tool_aliases: { shell: name } })).toEqual([
        { code: 'tool_name_hidden_character', pointer: '/tool_aliases/shell' },
      ]);
      expect(problemsOf({ tool_manifest: [manifestEntry('read'), manifestEntry(name)] })).toEqual([
        { code: 'tool_name_hidden_character', pointer: '/tool_manifest/1/name' },
      ]);
    },
  );

  it('names the character by its code point and shows the name escaped', () => {
    const result = validateToolManifest([manifestEntry('read\u202eyolpeD')]);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems[0]!.message).toContain('U+202E');
      expect(result.problems[0]!.message).not.toContain('\u202e');
    }
  });

  it('accepts names in any script, with spaces, dots and dashes', () => {
    for (const name of ['mcp__github__create_issue', 'Read File', 'déployer', '部署', 'a.b-c']) {
      expect(problemsOf({ tool_names: [name], tool_aliases: { [name]: name } })).toEqual([]);
      expect(validateToolManifest([manifestEntry(name)]).ok).toBe(true);
    }
  });
});

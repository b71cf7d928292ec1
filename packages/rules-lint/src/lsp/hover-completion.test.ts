import { describe, expect, it } from 'vitest';
import type { CompletionItem } from 'vscode-languageserver/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { catalogOfNames } from '../catalog/tool-catalog.js';
import { completions } from './completion.js';
import { ruleHover } from './hover.js';

/** The offset just after the first occurrence of `marker` in `text`. */
function after(text: string, marker: string): number {
  const index = text.indexOf(marker);
  if (index < 0) throw new Error(`no ${marker}`);
  return index + marker.length;
}

const policy = `{
  "approval_mode": "ask",
  "tool_names": ["bash", "write"],
  "approval_rules": [
    {"tool": "bash", "verdict": "deny", "reason": "no shell"},
    {"tool": "bash", "path": "command", "match": "ls*", "verdict": "allow"},
    {"tool": "write", "verdict": "ask", "origin": "author"}
  ]
}`;

describe('hover', () => {
  it('says what a rule matches, its outcome under each mode, and what shadows it', () => {
    const hover = ruleHover(policy, after(policy, '"match": "ls'));
    expect(hover).toContain('**rule 1**: allow');
    expect(hover).toContain('whose text at `command` is all of `ls*`');
    expect(hover).toContain('| bypass | granted (by the mode) |');
    expect(hover).toContain('| ask (this file) | granted (by this rule) |');
    expect(hover).toContain('Shadowed by rule 0 (deny): it never decides a call.');
  });

  it("marks a bare list's mode from its config, and a profile's own approval_mode over it", () => {
    const list = '[{"tool": "bash", "verdict": "ask"}]';
    const config = { mode: 'rules' as const, path: '/team/rules-lint.config.jsonc' };
    const hover = ruleHover(list, after(list, '"ask'), config);
    expect(hover).toContain(
      '| rules (this file, by rules-lint.config.jsonc) | parked for a person |',
    );
    expect(ruleHover(list, after(list, '"ask'))).toContain('| rules | parked for a person |');
    expect(ruleHover(policy, after(policy, '"match": "ls'), config)).toContain(
      '| ask (this file) | granted (by this rule) |\n| rules | granted (by this rule) |',
    );
  });

  it('marks ask for a profile without approval_mode, whatever its config says', () => {
    const profile = '{"approval_rules": [{"tool": "bash", "verdict": "ask"}]}';
    const config = { mode: 'rules' as const, path: '/team/rules-lint.config.jsonc' };
    const hover = ruleHover(profile, after(profile, '"ask'), config);
    expect(hover).toContain('| ask (this file, by default) | parked for a person |');
    expect(hover).toContain('| rules | parked for a person |');
  });

  it('speaks of origin for author and kernel rules, and is silent outside rules', () => {
    const hover = ruleHover(policy, after(policy, '"origin": "au'));
    expect(hover).toContain('**rule 2**: ask for author rows');
    expect(hover).toContain('| rules | parked for a person |');
    expect(hover).not.toContain('Shadowed');
    expect(ruleHover(policy, after(policy, '"approval_mo'))).toBeUndefined();
  });
});

const editorDocument = (text: string) =>
  TextDocument.create('file:///a.rules.json', 'json', 1, text);

/** The items offered at `offset`, as an editor receives them. */
const items = (text: string, offset: number, tools?: string[]): CompletionItem[] =>
  completions(editorDocument(text), offset, tools ? catalogOfNames(tools) : undefined);

/** The text after an editor accepts `label` at `offset`: its edit, or its insert text at the cursor. */
function accept(text: string, offset: number, label: string, tools?: string[]): string {
  const item = items(text, offset, tools).find((candidate) => candidate.label === label);
  if (!item) throw new Error(`no item ${label}`);
  const document = editorDocument(text);
  if (item.textEdit && 'range' in item.textEdit)
    return TextDocument.applyEdits(document, [item.textEdit]);
  return text.slice(0, offset) + (item.insertText ?? item.label) + text.slice(offset);
}

describe('completion', () => {
  const labels = (text: string, offset: number, tools?: string[]) =>
    items(text, offset, tools).map((item) => item.label);

  it('offers the keys a rule does not have yet', () => {
    const text = '[{"tool": "bash", "verdict": "allow", "" }]';
    expect(labels(text, after(text, '"allow", "'))).toEqual(['path', 'match', 'reason', 'origin']);
  });

  it('offers verdicts, origins and modes as values', () => {
    const verdict = '[{"tool": "bash", "verdict": "" }]';
    expect(labels(verdict, after(verdict, '"verdict": "'))).toEqual(['allow', 'ask', 'deny']);
    const origin = '[{"tool": "bash", "origin": "" }]';
    expect(labels(origin, after(origin, '"origin": "'))).toEqual(['model', 'author', 'kernel']);
    const mode = '{"approval_mode": ""}';
    expect(labels(mode, after(mode, '"approval_mode": "'))).toEqual(['bypass', 'ask', 'rules']);
  });

  it('offers known tool names from the catalog and the profile, mid-edit', () => {
    const text = '{"tool_names": ["grep"], "approval_rules": [{"tool": "", "verdict": "allow"}';
    expect(labels(text, after(text, '"tool": "'), ['bash', 'write'])).toEqual([
      'bash',
      'grep',
      'write',
    ]);
  });

  it('offers profile keys at the top level, leaving out those present', () => {
    const text = '{"approval_mode": "ask", "" }';
    expect(labels(text, after(text, '"ask", "'))).toEqual([
      'approval_rules',
      'tool_names',
      'tool_aliases',
      'lifecycle_hooks',
      'tool_manifest',
      'permission_rule_set',
      'custom_rule_sets',
      'project_root',
      'action_contract',
      'examples',
      '$schema',
    ]);
  });
});

describe('accepting a completion', () => {
  it('fills the string the cursor is in, without a second pair of quotes', () => {
    const empty = '[{"tool": "bash", "verdict": ""}]';
    expect(accept(empty, after(empty, '"verdict": "'), 'deny')).toBe(
      '[{"tool": "bash", "verdict": "deny"}]',
    );
    const key = '[{"tool": "bash", "verdict": "allow", ""}]';
    expect(accept(key, after(key, '"allow", "'), 'reason')).toBe(
      '[{"tool": "bash", "verdict": "allow", "reason"}]',
    );
  });

  it('replaces what is typed of a string still open, and filters by it', () => {
    const typing = '[\n  {"tool": "bash", "verdict": "de\n]';
    const offset = after(typing, '"de');
    const item = items(typing, offset).find((candidate) => candidate.label === 'deny');
    expect(item?.filterText).toBe('deny');
    expect(accept(typing, offset, 'deny')).toBe('[\n  {"tool": "bash", "verdict": "deny\n]');
    const tool = '{"approval_rules": [{"tool": "mc", "verdict": "allow"}]}';
    expect(accept(tool, after(tool, '"mc'), 'mcp__git__push', ['mcp__git__push'])).toBe(
      '{"approval_rules": [{"tool": "mcp__git__push", "verdict": "allow"}]}',
    );
  });

  it('completes only the tool alternative at the cursor', () => {
    const text = '[{"tool": "bash|wr|read", "verdict": "allow"}]';
    expect(accept(text, after(text, 'bash|wr'), 'write', ['bash', 'read', 'write'])).toBe(
      '[{"tool": "bash|write|read", "verdict": "allow"}]',
    );
    const last = '[{"tool": "bash|", "verdict": "allow"}]';
    expect(accept(last, after(last, 'bash|'), 'read', ['bash', 'read'])).toBe(
      '[{"tool": "bash|read", "verdict": "allow"}]',
    );
  });

  it('inserts the quoted word where no string is open yet', () => {
    const bare = '[{"tool": "bash", "verdict": }]';
    expect(accept(bare, after(bare, '"verdict": '), 'ask')).toBe(
      '[{"tool": "bash", "verdict": "ask"}]',
    );
  });
});

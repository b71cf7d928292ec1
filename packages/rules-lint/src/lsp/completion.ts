import { type CompletionItem, CompletionItemKind } from 'vscode-languageserver/node.js';
import { mergeCatalogs, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { RuleFile } from '../rule-file.js';
import { ruleAt, tolerantRuleFile } from './rule-at.js';

const RULE_KEYS: Record<string, string> = {
  tool: '`|`-separated anchored globs over the resolved tool name (required)',
  verdict: 'allow, ask or deny (required)',
  path: 'dotted key path into the tool input, such as `command` or `edits.0.path`',
  match: 'anchored glob over the text at `path`: `*` any run, `?` one byte (needs `path`)',
  reason: 'the denial detail the model reads (first 256 bytes)',
  origin: 'whose rows the rule addresses: model (default), author or kernel',
};
const PROFILE_KEYS: Record<string, string> = {
  approval_mode: 'bypass, ask or rules',
  approval_rules: 'the rule list',
  tool_names: 'the tools the agent has',
  tool_aliases: 'wire name to execution name',
  lifecycle_hooks: 'hooks by event (needs approval_mode)',
  examples: 'calls `rules-lint test` runs',
  $schema: 'the schema of this file, for editors',
};
const VALUES: Record<string, readonly string[]> = {
  verdict: ['allow', 'ask', 'deny'],
  origin: ['model', 'author', 'kernel'],
  approval_mode: ['bypass', 'ask', 'rules'],
};

/**
 * Completions at an offset: the keys a rule (or profile) may still take,
 * the values of `verdict`, `origin` and `approval_mode`, and known tool
 * names (the catalog's and the profile's) for `tool`.
 */
export function completions(
  text: string,
  offset: number,
  catalog: ToolCatalog | undefined,
): CompletionItem[] {
  const { value, file } = tolerantRuleFile(text);
  const tools = mergeCatalogs(catalog, file.declaredTools);
  const position = ruleAt(text, offset, file);
  const quote = (word: string) => JSON.stringify(word);
  if (position.atKey) {
    const keys = position.topLevel
      ? PROFILE_KEYS
      : position.ruleIndex !== undefined &&
          position.path.length === (file.kind === 'profile' ? 3 : 2)
        ? RULE_KEYS
        : undefined;
    if (!keys) return [];
    const present = presentKeys(value, file, position);
    return Object.entries(keys)
      .filter(([key]) => !present.has(key))
      .map(([key, detail]) => ({
        label: key,
        kind: CompletionItemKind.Property,
        detail,
        insertText: quote(key),
      }));
  }
  const key = position.key;
  if (key === undefined) return [];
  const inRule = position.ruleIndex !== undefined;
  if (key === 'tool' && inRule)
    return (tools?.names ?? []).map((name) => ({
      label: name,
      kind: CompletionItemKind.Value,
      insertText: quote(name),
    }));
  const values =
    (key === 'approval_mode' && position.topLevel) || (inRule && key !== 'approval_mode')
      ? VALUES[key]
      : undefined;
  return (values ?? []).map((value) => ({
    label: value,
    kind: CompletionItemKind.EnumMember,
    insertText: quote(value),
  }));
}

/** Keys already written where the offset is (a rule's, or the profile's). */
function presentKeys(
  value: unknown,
  file: RuleFile,
  position: ReturnType<typeof ruleAt>,
): Set<string> {
  const target = position.topLevel
    ? value
    : Array.isArray(file.rules)
      ? (file.rules as unknown[])[position.ruleIndex ?? -1]
      : undefined;
  return new Set(target !== null && typeof target === 'object' ? Object.keys(target) : []);
}

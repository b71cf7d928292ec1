import { type CompletionItem, CompletionItemKind } from 'vscode-languageserver/node.js';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { mergeCatalogs, resolvedCatalog, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { RuleFile } from '../rule-file.js';
import { ruleAt, tolerantRuleFile } from './rule-at.js';
import { stringContentAt } from './string-at.js';

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
  tool_manifest: 'the tools the agent has, with their input schemas, risk traits and path targets',
  permission_rule_set:
    'the rule set calls are decided by: read_only, supervised, autonomous, planning or a custom set id',
  custom_rule_sets: 'ordered permission rule sets {id, rules}; the first matching rule decides',
  project_root:
    'the absolute directory target patterns are rooted at (without it, absolute paths ask)',
  action_contract: 'the actions the agent may take, by classified action tags',
  examples: 'calls `rules-lint test` runs',
  $schema: 'the schema of this file, for editors',
};
const VALUES: Record<string, readonly string[]> = {
  verdict: ['allow', 'ask', 'deny'],
  origin: ['model', 'author', 'kernel'],
  approval_mode: ['bypass', 'ask', 'rules'],
};

/**
 * How a completed word enters the text. Inside a string literal (where the
 * `"` trigger puts the cursor) an edit replaces the string's content with the
 * word, escaped, so no second pair of quotes appears and the typed prefix
 * filters; with a `separator` (the `|` between tool alternatives) only the
 * alternative at the cursor is replaced. Elsewhere the quoted word is inserted.
 */
function wordItems(
  document: TextDocument,
  offset: number,
  separator?: string,
): (item: Omit<CompletionItem, 'insertText' | 'textEdit'>) => CompletionItem {
  const text = document.getText();
  const inside = stringContentAt(text, offset);
  if (inside === undefined) return (item) => ({ ...item, insertText: JSON.stringify(item.label) });
  let { start, end } = inside;
  if (separator !== undefined) {
    const before = text.lastIndexOf(separator, offset - 1);
    const after = text.indexOf(separator, offset);
    if (before >= start) start = before + separator.length;
    if (after >= 0 && after < end) end = after;
  }
  const range = { start: document.positionAt(start), end: document.positionAt(end) };
  return (item) => ({
    ...item,
    filterText: item.label,
    textEdit: { range, newText: JSON.stringify(item.label).slice(1, -1) },
  });
}

/**
 * Completions at an offset of a document: the keys a rule (or profile) may
 * still take, the values of `verdict`, `origin` and `approval_mode`, and
 * known tool names (the catalog's and the profile's) for `tool`.
 */
export function completions(
  document: TextDocument,
  offset: number,
  catalog: ToolCatalog | undefined,
): CompletionItem[] {
  const text = document.getText();
  const { value, file } = tolerantRuleFile(text);
  const tools = mergeCatalogs(resolvedCatalog(catalog, file.toolAliases), file.declaredTools);
  const position = ruleAt(text, offset, file);
  const word = wordItems(document, offset);
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
      .map(([key, detail]) => word({ label: key, kind: CompletionItemKind.Property, detail }));
  }
  const key = position.key;
  if (key === undefined) return [];
  const inRule = position.ruleIndex !== undefined;
  if (key === 'tool' && inRule) {
    // A tool is `|`-separated alternatives: complete the one at the cursor.
    const alternative = wordItems(document, offset, '|');
    return (tools?.names ?? []).map((name) =>
      alternative({ label: name, kind: CompletionItemKind.Value }),
    );
  }
  const values =
    (key === 'approval_mode' && position.topLevel) || (inRule && key !== 'approval_mode')
      ? VALUES[key]
      : undefined;
  return (values ?? []).map((value) => word({ label: value, kind: CompletionItemKind.EnumMember }));
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

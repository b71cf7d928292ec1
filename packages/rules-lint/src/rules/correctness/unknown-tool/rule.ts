import { matchGlob, resolveToolName } from '@airlock/core';
import { nearestName } from '../../../analysis/nearest-name.js';
import type { RuleEntry } from '../../../analysis/rule-entry.js';
import { type ToolCatalog, toolsMatching } from '../../../catalog/tool-catalog.js';
import type { PermissionRuleEntry } from '../../../permissions/permission-entries.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** A tool glob that matches none of the known tools. */
export const unknownTool: LintRule = {
  id: 'unknown-tool',
  category: 'correctness',
  severity: 'error',
  fixKind: 'none',
  docs: {
    summary: 'A tool name or glob that matches no known tool, so the rule never applies.',
    description:
      'Rules see the resolved tool name (after the runner suffix and `tool_aliases`); a deny or ask also binds a call by the name the model called it, an allow grants by the resolved name only. ' +
      'An alternative of `tool` that matches none of the known tools is almost always a typo, ' +
      "and under `rules` mode a typo in an allow rule turns into refusals the model reads. Known tools are those of `--tools CATALOG.json` (or the config's `tools`), the profile's `tool_manifest`, `tool_names` " +
      "and its lifecycle hook tools, every name resolved through its aliases as a call's name is; with none known, the rule is silent. Fix the spelling or add the tool to the catalog. " +
      'A deny whose tool glob (with `*` or `?`) matches no known tool is only a warning: guarding a namespace before its tools exist (`mcp__gitlab__*`) is sound practice. ' +
      "When a profile declares `tool_names`, the kernel refuses a model's call to any other tool before reading its allow and ask rules, so a model allow or ask naming only tools outside `tool_names` (a catalog tool included) is an error too; a deny there still gives its own reason, and author and kernel rows are not held to `tool_names`. " +
      'A permission rule (spec 003) is checked the same way: each of its `tools` globs and `tool_names` names must select a known tool, as the permission layer sees it (the resolved name).',
    bad: '{\n  "tool_names": ["bash", "write"],\n  "approval_rules": [{"tool": "bsah", "verdict": "allow"}]\n}',
    good: '{\n  "tool_names": ["bash", "write"],\n  "approval_rules": [{"tool": "bash", "verdict": "allow"}]\n}',
  },
  check({ rules, tools, toolAliases, toolNames, permissionRules }) {
    const declared = toolNames === undefined ? undefined : declaredCalls(toolNames, toolAliases);
    const reports: LintReport[] = [];
    for (const entry of rules) {
      for (const alternative of entry.alternatives) {
        const unknown = unknownAlternative(entry, alternative, tools, toolAliases);
        if (unknown !== 'known') {
          if (unknown) reports.push(unknown);
          continue;
        }
        // A model's call outside tool_names is refused before an allow or ask is read.
        if (!declared || entry.origin !== 'model' || entry.verdict === 'deny') continue;
        const reachable = entry.verdict === 'allow' ? declared.resolved : declared.called;
        if (reachable.some((name) => matchGlob(alternative, name))) continue;
        reports.push({
          pointer: `${entry.pointer}/tool`,
          message:
            `tool "${alternative}" is not among the profile's tool_names, and the kernel refuses a model's call to a tool outside them before any ${entry.verdict} rule is read, so this part of rule ${entry.index} never applies. ` +
            `Add the tool to tool_names, or remove it from the rule.`,
        });
      }
    }
    reports.push(...unknownPermissionTools(permissionRules, tools, toolAliases));
    return reports;
  },
};

/**
 * A permission rule's `tools` glob or `tool_names` name that selects none of
 * the known tools: the permission layer sees the resolved name only, so the
 * rule never applies to it (a deny glob for a namespace is only a warning).
 */
function unknownPermissionTools(
  entries: readonly PermissionRuleEntry[] | undefined,
  tools: ToolCatalog | undefined,
  toolAliases: Readonly<Record<string, string>>,
): LintReport[] {
  if (!tools || tools.names.length === 0) return [];
  const reports: LintReport[] = [];
  for (const entry of entries ?? []) {
    const rule = entry.rule;
    if (rule === null) continue;
    const named = [
      ...(rule.tools ?? []).map((name, index) => ({ name, key: 'tools', index, glob: true })),
      ...(rule.tool_names ?? []).map((name, index) => ({
        name,
        key: 'tool_names',
        index,
        glob: false,
      })),
    ];
    for (const { name, key, index, glob } of named) {
      const known = glob ? toolsMatching(tools, name).length > 0 : tools.names.includes(name);
      if (known) continue;
      const pointer = `${entry.pointer}/${key}/${index}`;
      const alias = Object.hasOwn(toolAliases, name) ? toolAliases[name] : undefined;
      if (alias !== undefined) {
        reports.push({
          pointer,
          message: `"${name}" is an alias of "${alias}" in tool_aliases, and permission rules see the resolved name only, so this part of ${rule.verdict} rule ${entry.index} never applies. Write "${alias}" instead.`,
        });
        continue;
      }
      if (rule.verdict === 'deny' && glob && /[*?]/.test(name)) {
        reports.push({
          pointer,
          severity: 'warning',
          message: `tool glob "${name}" matches none of the ${tools.names.length} known tools. A deny for a namespace the catalog does not know yet (such as "mcp__gitlab__*") is a sound guard, so this is only a warning: check the spelling, or add the tools to the catalog.`,
        });
        continue;
      }
      const suggestion = nearestName(name, tools.names);
      reports.push({
        pointer,
        message:
          `${glob ? 'tool glob' : 'tool name'} "${name}" ${glob ? 'matches' : 'is'} none of the ${tools.names.length} known tools, so this part of ${rule.verdict} rule ${entry.index} never applies.` +
          (suggestion
            ? ` Did you mean "${suggestion}"?`
            : ' Check the spelling, or add the tool to the catalog.'),
      });
    }
  }
  return reports;
}

/**
 * The names under which a model's call gets past `tool_names` (the kernel
 * admits a call whose called or resolved name is declared): the resolved
 * names an allow sees, and for a deny or ask also the aliases it is called by.
 */
function declaredCalls(
  toolNames: readonly string[],
  toolAliases: Readonly<Record<string, string>>,
): { resolved: string[]; called: string[] } {
  const resolved = new Set(toolNames);
  for (const name of toolNames) resolved.add(resolveToolName(name, toolAliases));
  const called = new Set(resolved);
  for (const [alias, target] of Object.entries(toolAliases))
    if (resolved.has(target) || resolved.has(alias)) called.add(alias);
  return { resolved: [...resolved], called: [...called] };
}

/**
 * The finding for an alternative that names no known tool, undefined when it
 * is left alone (a deny or ask naming an alias), or 'known'.
 */
function unknownAlternative(
  entry: RuleEntry,
  alternative: string,
  tools: ToolCatalog | undefined,
  toolAliases: Readonly<Record<string, string>>,
): LintReport | undefined | 'known' {
  if (!tools || tools.names.length === 0 || toolsMatching(tools, alternative).length > 0)
    return 'known';
  const aliased = Object.keys(toolAliases).filter((name) => matchGlob(alternative, name));
  // A deny or ask naming the called name binds an aliased call; an allow grants by the resolved name only.
  if (aliased.length > 0 && entry.verdict !== 'allow') return undefined;
  if (aliased.length > 0) {
    const targets = [...new Set(aliased.map((name) => toolAliases[name]!))];
    return {
      pointer: `${entry.pointer}/tool`,
      message:
        `tool "${alternative}" names ${aliased.length === 1 ? 'an alias' : 'aliases'} of ${targets.map((name) => `"${name}"`).join(', ')} in tool_aliases, and an allow grants by the resolved name only, so this part of rule ${entry.index} never grants. ` +
        `Write ${targets.map((name) => `"${name}"`).join(' or ')} instead.`,
    };
  }
  if (entry.verdict === 'deny' && /[*?]/.test(alternative)) {
    return {
      pointer: `${entry.pointer}/tool`,
      severity: 'warning',
      message:
        `tool "${alternative}" matches none of the ${tools.names.length} known tools. A deny for a namespace the catalog does not know yet (such as "mcp__gitlab__*") is a sound guard, ` +
        `so this is only a warning: check the spelling, or add the tools to the catalog.`,
    };
  }
  const suggestion = nearestName(alternative, tools.names);
  return {
    pointer: `${entry.pointer}/tool`,
    message:
      `tool "${alternative}" matches none of the ${tools.names.length} known tools, so this part of rule ${entry.index} never applies.` +
      (suggestion
        ? ` Did you mean "${suggestion}"?`
        : ' Check the spelling, or add the tool to the catalog.'),
  };
}

import {
  type ApprovalRule,
  type Decision,
  resolveToolName,
  type ToolCall,
  textAtPath,
} from '../index.js';
import { denialDetailOf } from '../rules/compiled-rule.js';

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[\\s\\S]*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/**
 * The naive evaluator a first attempt writes: every glob a RegExp, every
 * rule scanned for every call, the path walked again for each rule.
 */
export function naiveEvaluator(rules: readonly ApprovalRule[]): (call: ToolCall) => Decision {
  const compiled = rules.map((rule, index) => ({
    index,
    rule,
    tools: rule.tool.split('|').map(globToRegExp),
    path: rule.path?.split('.') ?? null,
    match: rule.match === undefined ? null : globToRegExp(rule.match),
  }));
  return (call) => {
    const toolName = resolveToolName(call.toolName);
    const matched: number[] = [];
    let deny: ApprovalRule | null = null;
    let denyIndex = -1;
    let ask = false;
    let allow = false;
    for (const entry of compiled) {
      if ((entry.rule.origin ?? 'model') !== call.origin) continue;
      if (!entry.tools.some((re) => re.test(toolName))) continue;
      if (entry.path) {
        const text = textAtPath(call.toolInput, entry.path);
        if (text === undefined || (entry.match && !entry.match.test(text))) continue;
      }
      matched.push(entry.index);
      if (entry.rule.verdict === 'deny' && !deny) {
        deny = entry.rule;
        denyIndex = entry.index;
      } else if (entry.rule.verdict === 'ask') ask = true;
      else if (entry.rule.verdict === 'allow') allow = true;
    }
    const base = { matched, tool_name: toolName };
    if (deny) {
      // The same text a denying rule carries, made per call as a naive evaluator would.
      const detail = denialDetailOf(denyIndex, deny.reason);
      return {
        ...base,
        outcome: 'denied',
        granted_by: null,
        error: { code: 'approval_denied', detail },
      };
    }
    if (call.origin !== 'model') {
      return ask
        ? { ...base, outcome: 'parked', granted_by: null, error: null }
        : { ...base, outcome: 'granted', granted_by: 'origin', error: null };
    }
    if (call.mode === 'bypass')
      return { ...base, outcome: 'granted', granted_by: 'mode', error: null };
    if (ask || (call.mode === 'ask' && !allow))
      return { ...base, outcome: 'parked', granted_by: null, error: null };
    if (allow) return { ...base, outcome: 'granted', granted_by: 'rule', error: null };
    return {
      ...base,
      outcome: 'denied',
      granted_by: null,
      error: { code: 'approval_denied', detail: `no approval rule allows ${toolName}` },
    };
  };
}

/** The floor: one Map lookup and one startsWith per call, the least any evaluator could do. */
export function floorEvaluator(rules: readonly ApprovalRule[]): (call: ToolCall) => boolean {
  const byTool = new Map<string, string>();
  for (const rule of rules) byTool.set(rule.tool, rule.match ?? '');
  return (call) => {
    const prefix = byTool.get(call.toolName);
    const command = (call.toolInput as { command?: unknown }).command;
    return prefix !== undefined && typeof command === 'string' && command.startsWith(prefix);
  };
}

import { matchGlob } from '@airlock/core';
import type { RuleEntry } from './rule-entry.js';

/**
 * A deny or ask rule as it meets calls made by an alias: such a rule binds a
 * call by the name it was made by as well as by the name the alias resolves
 * to, so it may share a call with any rule naming that resolved name. The
 * rule with the targets of the aliases its tool names added to its
 * alternatives (the same entry when it names none). For deciding overlaps
 * only: the added names are literal tool names.
 */
export function withAliasTargets(
  entry: RuleEntry,
  toolAliases: Readonly<Record<string, string>>,
): RuleEntry {
  const targets = Object.entries(toolAliases)
    .filter(([alias]) => entry.alternatives.some((alternative) => matchGlob(alternative, alias)))
    .map(([, target]) => target)
    .filter((target) => !entry.alternatives.includes(target));
  if (targets.length === 0) return entry;
  return { ...entry, alternatives: [...new Set([...entry.alternatives, ...targets])] };
}

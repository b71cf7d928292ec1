import { CLAIM_TOOL_NAMES_MAX } from '@airlock/core/wire';

/** An executor's tool names in the groups it claims for, each of at most 256 names, in order. */
export function claimGroups(names: readonly string[]): string[][] {
  const groups: string[][] = [];
  for (let at = 0; at < names.length; at += CLAIM_TOOL_NAMES_MAX) {
    groups.push(names.slice(at, at + CLAIM_TOOL_NAMES_MAX));
  }
  return groups;
}

import { type PermissionRule, PermissionRuleSchema } from '@airlock/core';
import type { PermissionRuleList } from './permission-chains.js';

/** One permission rule of a file, as written, with where it sits. */
export interface PermissionRuleEntry {
  /** 0-based index in its list (the rule number the kernel reports). */
  readonly index: number;
  /** JSON pointer to the rule object (`/custom_rule_sets/0/rules/2`). */
  readonly pointer: string;
  /** The rule as written: an object, not necessarily one the kernel accepts. */
  readonly written: Readonly<Record<string, unknown>>;
  /** The rule when the kernel accepts it on its own, else null. */
  readonly rule: PermissionRule | null;
  /** Rules with the same sequence are read in order as one list (an overlay's groups for one rule set). */
  readonly sequence: string;
}

/**
 * Every object of the file's permission rule lists, so a lint rule can read
 * the rules the kernel accepts (`rule`) and explain the ones it refuses.
 */
export function permissionRuleEntries(lists: readonly PermissionRuleList[]): PermissionRuleEntry[] {
  const entries: PermissionRuleEntry[] = [];
  for (const list of lists) {
    list.rules.forEach((written, index) => {
      if (written === null || typeof written !== 'object' || Array.isArray(written)) return;
      const parsed = PermissionRuleSchema.safeParse(written);
      entries.push({
        index,
        pointer: `${list.pointer}/${index}`,
        written: written as Record<string, unknown>,
        rule: parsed.success ? parsed.data : null,
        sequence: list.sequence ?? list.pointer,
      });
    });
  }
  return entries;
}

/** A permission rule's `working_directory` written as text, with its pointer. */
export interface WrittenWorkingDirectory {
  readonly entry: PermissionRuleEntry;
  readonly value: string;
  readonly pointer: string;
}

/** The `working_directory` texts of a file's permission rules, accepted by the kernel or not. */
export function writtenWorkingDirectories(
  entries: readonly PermissionRuleEntry[] | undefined,
): WrittenWorkingDirectory[] {
  return (entries ?? []).flatMap((entry) => {
    const value = entry.written.working_directory;
    return typeof value === 'string'
      ? [{ entry, value, pointer: `${entry.pointer}/working_directory` }]
      : [];
  });
}

import { placedDirectory } from '@airlock/core';
import { writtenWorkingDirectories } from '../../../permissions/permission-entries.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** The directory before the first segment holding `*` or `?`, when only such segments follow it. */
function directoryBeforeGlob(value: string): string | undefined {
  const segments = value.split('/');
  const first = segments.findIndex((segment) => /[*?]/.test(segment));
  if (first < 1) return undefined;
  const rest = segments.slice(first).filter((segment) => segment !== '');
  if (!rest.every((segment) => /^[*?]+$/.test(segment))) return undefined;
  return placedDirectory(segments.slice(0, first).join('/') || '/');
}

/** A `working_directory` written as a glob (`/repo/src/**`), which is compared as a plain directory. */
export const workingDirectoryGlob: LintRule = {
  id: 'working-directory-glob',
  category: 'correctness',
  severity: 'warning',
  fixKind: 'unsafe',
  docs: {
    summary:
      'A `working_directory` holding `*` or `?` (`/home/dev/app/src/**`): it is one directory compared exactly, not a glob, so the rule never holds below it.',
    description:
      "A rule's `working_directory` is compared with the directory a call is made in as text (with `.`, `..`, doubled and trailing slashes resolved), never as a pattern: " +
      '`/home/dev/app/src/**` holds only for calls made in a directory literally named `**`, not in `/home/dev/app/src` nor below it, so the rule never holds. ' +
      'A rule holds in exactly one directory: write that directory, and one rule per directory it should hold in. ' +
      'When only wildcard segments follow a directory the fix writes that directory; it is unsafe because the rule then starts to hold.',
    bad: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Bash"], "working_directory": "/home/dev/app/src/**"}]}]\n}',
    good: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Bash"], "working_directory": "/home/dev/app/src"}]}]\n}',
  },
  check({ permissionRules }) {
    const reports: LintReport[] = [];
    for (const { entry, value, pointer } of writtenWorkingDirectories(permissionRules)) {
      if (!value.startsWith('/') || !/[*?]/.test(value)) continue;
      const directory = directoryBeforeGlob(value);
      const advice = directory
        ? `For calls made in ${directory}, write "${directory}"; a rule holds in one directory, so write one rule per directory below it that it should hold in.`
        : 'Write the one directory the rule should hold in (one rule per directory).';
      reports.push({
        pointer,
        message:
          `rule ${entry.index}'s working_directory ${JSON.stringify(value)} is compared as one directory, exactly, not as a glob: ` +
          `the rule holds only for calls made in a directory named ${JSON.stringify(placedDirectory(value))} itself, so it never holds${directory ? ` in ${directory} or below it` : ''}. ${advice}`,
        ...(directory
          ? {
              fix: {
                title: `Write the directory "${directory}"`,
                kind: 'unsafe' as const,
                operations: [{ op: 'set' as const, pointer, value: directory }],
              },
            }
          : {}),
      });
    }
    return reports;
  },
};

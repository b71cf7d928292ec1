import { placedDirectory } from '@airlock/core';
import { writtenWorkingDirectories } from '../../../permissions/permission-entries.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** A `working_directory` whose written text is not the directory the kernel compares. */
export const workingDirectoryResolved: LintRule = {
  id: 'working-directory-resolved',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'safe',
  docs: {
    summary:
      'A `working_directory` that the kernel reads as another directory than written (`/home/dev/app/src/../secrets` is `/home/dev/app/secrets`).',
    description:
      'The kernel resolves `.`, `..`, doubled and trailing slashes of a `working_directory` as text, without reading the file system, and compares the result with the directory a call is made in. ' +
      '`/home/dev/app/src/../secrets` therefore holds in `/home/dev/app/secrets`, not in `/home/dev/app/src`, which a reader of the rule may well take it for. ' +
      'The safe fix writes the directory the kernel compares, so the rule says what it does. A value that differs only by doubled or trailing slashes is reported as info. ' +
      'A `..` at the filesystem root stays there, as the system keeps it: `/../etc` is `/etc`.',
    bad: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "deny", "tools": ["Bash"], "working_directory": "/home/dev/app/src/../secrets", "reason": "not from secrets"}]}]\n}',
    good: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "deny", "tools": ["Bash"], "working_directory": "/home/dev/app/secrets", "reason": "not from secrets"}]}]\n}',
  },
  check({ permissionRules }) {
    const reports: LintReport[] = [];
    for (const { entry, value, pointer } of writtenWorkingDirectories(permissionRules)) {
      if (!value.startsWith('/')) continue;
      const placed = placedDirectory(value);
      const rule = `rule ${entry.index}'s working_directory ${JSON.stringify(value)}`;
      if (placed === value) continue;
      const slashesOnly = !value.split('/').some((segment) => segment === '.' || segment === '..');
      reports.push({
        pointer,
        message: slashesOnly
          ? `${rule} is compared as ${JSON.stringify(placed)} (doubled and trailing slashes dropped). Write ${JSON.stringify(placed)}.`
          : `${rule} is compared as ${JSON.stringify(placed)} (".", ".." and slashes resolved as text): the rule holds for calls made in ${placed}, and nowhere else. Write ${JSON.stringify(placed)} so the rule says where it holds.`,
        ...(slashesOnly ? { severity: 'info' as const } : {}),
        fix: {
          title: `Write "${placed}"`,
          kind: 'safe',
          operations: [{ op: 'set', pointer, value: placed }],
        },
      });
    }
    return reports;
  },
};

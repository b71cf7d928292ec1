import { placedDirectory } from '@airlock/core';
import { writtenWorkingDirectories } from '../../../permissions/permission-entries.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** A permission rule whose `working_directory` is relative, which the kernel refuses. */
export const workingDirectoryRelative: LintRule = {
  id: 'working-directory-relative',
  category: 'correctness',
  severity: 'error',
  fixKind: 'unsafe',
  docs: {
    summary:
      'A permission rule whose `working_directory` is relative (`src`): it is compared with the absolute directory a call is made in, so the kernel refuses it.',
    description:
      "A rule's `working_directory` holds only for calls made in that directory, and a call's directory is absolute (a hooked agent's `cwd`, else the project root). " +
      'A relative one is refused with the declaration (`rule_set_invalid`: a custom rule set holding it falls back to Baseline when it is selected; `overlay_document_invalid` for an overlay). ' +
      'Write the absolute directory. In a profile with an absolute `project_root` the fix writes the value under it (`src` under `/home/dev/app` is `/home/dev/app/src`); ' +
      'it is unsafe because the rule then starts to hold.',
    bad: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Bash"], "working_directory": "src"}]}]\n}',
    good: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Bash"], "working_directory": "/home/dev/app/src"}]}]\n}',
  },
  check({ permissionRules, projectRoot }) {
    const reports: LintReport[] = [];
    for (const { entry, value, pointer } of writtenWorkingDirectories(permissionRules)) {
      if (value.startsWith('/')) continue;
      const rooted = typeof projectRoot === 'string' && projectRoot.startsWith('/');
      const meant = rooted ? placedDirectory(`${projectRoot}/${value}`) : undefined;
      const example = meant
        ? `"${meant}" under project_root "${projectRoot}"`
        : '"/home/dev/app/src"';
      reports.push({
        pointer,
        message:
          `rule ${entry.index}'s working_directory ${JSON.stringify(value)} is relative, but a call's directory is absolute (the agent's cwd, else the project root), ` +
          `so the kernel refuses this rule with its rule set or overlay (a refused custom rule set falls back to Baseline when selected). Write the absolute directory, such as ${example}.`,
        ...(meant
          ? {
              fix: {
                title: `Write the absolute directory "${meant}"`,
                kind: 'unsafe' as const,
                operations: [{ op: 'set' as const, pointer, value: meant }],
              },
            }
          : {}),
      });
    }
    return reports;
  },
};

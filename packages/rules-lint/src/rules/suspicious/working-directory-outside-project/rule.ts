import { canonicalPath, placedDirectory } from '@airlock/core';
import { writtenWorkingDirectories } from '../../../permissions/permission-entries.js';
import type { LintReport, LintRule } from '../../lint-rule.js';

/** A `working_directory` neither inside the profile's `project_root` nor above it. */
export const workingDirectoryOutsideProject: LintRule = {
  id: 'working-directory-outside-project',
  category: 'suspicious',
  severity: 'warning',
  fixKind: 'none',
  docs: {
    summary:
      "A `working_directory` outside the profile's `project_root`: calls made there cannot be placed, so they ask under every deny or ask target rule.",
    description:
      "A call's relative paths and shell words are read from the directory it is made in, and placed against the project's target patterns through `project_root`. " +
      'In a directory neither inside the project root nor above it they cannot be placed, so every such call asks a person under any deny or ask target rule (`airlock hooks doctor` warns of an agent run there), ' +
      'and a rule held to that directory is usually a typo of the project root (`/home/dev/ap/src`) or a copy from another machine. ' +
      'Write a directory inside the project root, or set `project_root` to a directory that holds both. The rule reads a profile file only (an overlay or a rule set file does not say its project root).',
    bad: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Bash"], "working_directory": "/home/dev/ap/src"}]}]\n}',
    good: '{\n  "project_root": "/home/dev/app",\n  "permission_rule_set": "team",\n  "custom_rule_sets": [{"id": "team", "rules": [{"verdict": "allow", "tools": ["Bash"], "working_directory": "/home/dev/app/src"}]}]\n}',
  },
  check({ permissionRules, projectRoot }) {
    if (typeof projectRoot !== 'string' || !projectRoot.startsWith('/')) return [];
    const reports: LintReport[] = [];
    for (const { entry, value, pointer } of writtenWorkingDirectories(permissionRules)) {
      if (!value.startsWith('/')) continue;
      const placed = canonicalPath(placedDirectory(value), projectRoot);
      if (placed.rooted || placed.holdsProject === true) continue;
      const caseOnly =
        placed.rootedWhenFolded === undefined ? '' : ' (it differs from it only in letter case)';
      reports.push({
        pointer,
        message:
          `rule ${entry.index}'s working_directory ${JSON.stringify(value)} lies outside the profile's project_root ${JSON.stringify(projectRoot)}${caseOnly}: ` +
          "the rule holds only for calls made there, and such a call's relative paths and shell words cannot be placed against the project, so every one of them asks a person under any deny or ask target rule. " +
          'Write a directory inside the project root, or set project_root to a directory that holds both.',
      });
    }
    return reports;
  },
};

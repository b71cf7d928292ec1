import { canonicalPath } from '@airlock/core';
import type { DoctorCheck } from './doctor-types.js';

/**
 * Whether the directory the agent runs in lies where the kernel can place
 * it: inside the profile's `project_root` or above it (as core reads a
 * hook's `cwd`). Elsewhere, each relative path and shell word of a call
 * cannot be placed, so every such call asks under any deny or ask path
 * rule. With no project root, only a profile whose own rule sets name path
 * targets is checked (see {@link noRoot}); null for one that names none.
 */
export function projectRootCheck(configuration: unknown, directory: string): DoctorCheck | null {
  const root = isObject(configuration) ? configuration.project_root : undefined;
  const check = 'project root';
  if (typeof root !== 'string') {
    return targetRulesWithoutRoot(configuration) ? noRoot(directory) : null;
  }
  const placed = directory.startsWith('/') ? canonicalPath(directory, root) : null;
  if (placed !== null && (placed.rooted || placed.holdsProject === true)) {
    return {
      check,
      status: 'ok',
      detail: `${directory} lies within the profile's project_root ${root} (or above it)`,
    };
  }
  const caseOnly =
    placed?.rootedWhenFolded !== undefined ? ' (it differs from it only in letter case)' : '';
  return {
    check,
    status: 'warn',
    detail: `the agent's directory ${directory} is outside the profile's project_root ${root}${caseOnly}: a relative path or shell word in its calls cannot be placed, so every such call asks under any deny or ask path rule`,
    fix: `run the agent inside ${root}, or set project_root to ${directory} or a directory above it (PUT /agent_api/v1/profile/configuration)`,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a custom rule set of the profile has a rule over path targets (`secrets/**`). */
function targetRulesWithoutRoot(configuration: unknown): boolean {
  const sets = isObject(configuration) ? configuration.custom_rule_sets : undefined;
  if (!Array.isArray(sets)) return false;
  return sets.some(
    (set) =>
      isObject(set) &&
      Array.isArray(set.rules) &&
      set.rules.some((rule) => isObject(rule) && Array.isArray(rule.targets)),
  );
}

/**
 * A profile with target rules and no project root: a target pattern is rooted at the project,
 * so an absolute path (Claude Code's Read, Write and Edit give them) cannot be placed and asks
 * under a deny or ask one, and the agent's working directory is not read (`cat key` after `cd
 * secrets` is `key`).
 */
function noRoot(directory: string): DoctorCheck {
  return {
    check: 'project root',
    status: 'warn',
    detail:
      "the profile's rule sets name path targets but the profile has no project_root: an absolute path in a call (Claude Code's Read, Write and Edit give them) cannot be placed, so every such call asks under a deny or ask path rule, and the agent's working directory is not read",
    fix: `set project_root to ${directory} or a directory above it (PUT /agent_api/v1/profile/configuration)`,
  };
}

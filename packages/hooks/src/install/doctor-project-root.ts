import { canonicalPath } from '@airlock/core';
import type { DoctorCheck } from './doctor-types.js';

/**
 * Whether the directory the agent runs in lies where the kernel can place
 * it: inside the profile's `project_root` or above it (as core reads a
 * hook's `cwd`). Elsewhere, each relative path and shell word of a call
 * cannot be placed, so every such call asks under any deny or ask path
 * rule. Null when the profile names no project root.
 */
export function projectRootCheck(configuration: unknown, directory: string): DoctorCheck | null {
  const root =
    typeof configuration === 'object' && configuration !== null
      ? (configuration as { project_root?: unknown }).project_root
      : undefined;
  if (typeof root !== 'string') return null;
  const check = 'project root';
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

import { classifyShellSegments } from './segment-walker.js';
import { type ActionTag, orderedTags } from './tags.js';

/**
 * Classifies a shell command line into action tags (spec 004): the union of
 * the tags of every simple command in it, including those inside `$(...)`,
 * backticks, `bash -c` strings, here-documents fed to a shell, `find -exec`
 * and wrappers such as `sudo`, `env`, `timeout` and `xargs`. What it cannot
 * read (unbalanced quotes, `eval`, encoded payloads, scripts, unknown
 * programs) adds `unknown`; it never reads as `read` alone. Not a shell
 * interpreter: behaviour hidden in scripts or aliases is not seen.
 */
export function classifyShellCommand(command: string): ActionTag[] {
  const tags = new Set<ActionTag>();
  for (const segment of classifyShellSegments(command)) {
    for (const tag of segment.tags) tags.add(tag);
  }
  if (tags.size === 0) tags.add('unknown');
  return orderedTags(tags);
}

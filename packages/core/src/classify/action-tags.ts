import {
  type ClassifiedSegment,
  classifyShellSegments,
  type ShellLineOptions,
} from './segment-walker.js';
import { type ActionTag, orderedTags, UNREAD_COMMAND_TAGS } from './tags.js';

export { UNREAD_COMMAND_TAGS };

/**
 * The longest command the classifier reads, in UTF-16 code units. Reading
 * costs time in proportion to the text (more for many short segments), and
 * the kernel classifies on its event loop: past this bound a command is not
 * read at all (see {@link UNREAD_COMMAND_TAGS}).
 */
export const MAX_CLASSIFIED_COMMAND_LENGTH = 8192;

/**
 * Classifies a shell command line into action tags (spec 004): the union of
 * the tags of every simple command in it, including those inside `$(...)`,
 * backticks, `bash -c` strings, here-documents fed to a shell, `find -exec`
 * and wrappers such as `sudo`, `env`, `timeout` and `xargs`. What it cannot
 * read (unbalanced quotes, `eval`, encoded payloads, scripts, unknown
 * programs) adds `unknown`; it never reads as `read` alone. Not a shell
 * interpreter: behaviour hidden in scripts or aliases is not seen. A command
 * longer than {@link MAX_CLASSIFIED_COMMAND_LENGTH} is not read: it carries
 * {@link UNREAD_COMMAND_TAGS}. The line is read as bash and as POSIX sh
 * (an executor may run it with `/bin/sh`) unless `options.shell` says bash runs it.
 */
export function classifyShellCommand(command: string, options: ShellLineOptions = {}): ActionTag[] {
  return commandTags(command, undefined, options);
}

/** Receives a command's segments where they are classified, so a caller needing both reads it once. */
export type SegmentsRead = (command: string, segments: readonly ClassifiedSegment[]) => void;

/** {@link classifyShellCommand}, handing the segments it read (none past the length bound) to `read`. */
export function commandTags(
  command: string,
  read?: SegmentsRead,
  options: ShellLineOptions = {},
): ActionTag[] {
  if (command.length > MAX_CLASSIFIED_COMMAND_LENGTH) return [...UNREAD_COMMAND_TAGS];
  const tags = new Set<ActionTag>();
  const segments = classifyShellSegments(command, options);
  read?.(command, segments);
  for (const segment of segments) {
    for (const tag of segment.tags) tags.add(tag);
  }
  if (tags.size === 0) tags.add('unknown');
  return orderedTags(tags);
}

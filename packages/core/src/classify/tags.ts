/** What a shell command does, in the vocabulary of structured action rules (spec 004). */
export const ACTION_TAGS = [
  'read',
  'write',
  'delete',
  'destructive',
  'install_local',
  'network',
  'publish',
  'external',
  'unknown',
] as const;

/** One normalized action tag. */
export type ActionTag = (typeof ACTION_TAGS)[number];

/**
 * The tags of a command the classifier cannot tell anything about (too long
 * to read, or a program name any program may match): every action it could
 * take but a plain read, so a contract's forbidden and requires_user lists
 * meet it and nothing allows it as a read.
 */
export const UNREAD_COMMAND_TAGS: readonly ActionTag[] = ACTION_TAGS.filter(
  (tag) => tag !== 'read',
);

/** The tags of a set in their canonical order (the order of {@link ACTION_TAGS}). */
export function orderedTags(tags: Iterable<ActionTag>): ActionTag[] {
  const present = new Set(tags);
  return ACTION_TAGS.filter((tag) => present.has(tag));
}

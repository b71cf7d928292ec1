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

/** The tags of a set in their canonical order (the order of {@link ACTION_TAGS}). */
export function orderedTags(tags: Iterable<ActionTag>): ActionTag[] {
  const present = new Set(tags);
  return ACTION_TAGS.filter((tag) => present.has(tag));
}

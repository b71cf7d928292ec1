/**
 * Reading one field of a tool input, the hottest read of the evaluator.
 *
 * A read `input[key]` with a variable key shares one inline cache across
 * every tool's input shape and every key, which the engine gives up on
 * (megamorphic) in a mixed workload. The fields the common agent tools carry
 * (shell commands and argv, file paths, URLs, search patterns and queries,
 * contents) are therefore read by name, each at its own site, whose cache
 * sees only the few shapes that hold that field. Measured on the shell-heavy
 * benchmark: about 6% of the mean. Any other key takes the generic read;
 * both read the same property.
 */

export const NAMED_FIELDS = [
  'command',
  'argv',
  'file_path',
  'path',
  'url',
  'pattern',
  'query',
  'content',
] as const;

/** The generic read, for a key outside NAMED_FIELDS. */
export const OTHER_FIELD = -1;

/** The code `readField` takes for a key: its place in NAMED_FIELDS, or OTHER_FIELD. */
export function fieldCodeOf(key: string): number {
  return (NAMED_FIELDS as readonly string[]).indexOf(key);
}

/** `input[key]`, with `code` from `fieldCodeOf(key)`. */
export function readField(input: Record<string, unknown>, code: number, key: string): unknown {
  switch (code) {
    case 0:
      return input.command;
    case 1:
      return input.argv;
    case 2:
      return input.file_path;
    case 3:
      return input.path;
    case 4:
      return input.url;
    case 5:
      return input.pattern;
    case 6:
      return input.query;
    case 7:
      return input.content;
    default:
      return input[key];
  }
}

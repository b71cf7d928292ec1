/**
 * How a task row's `effect_profile` column holds the profile: without its
 * `tool_input`, which the row's own `tool_input` column already holds. A
 * parked call's input is written and read once instead of twice; for a large
 * input (an 800 KB pasted script) that halves the row and its JSON work.
 */

/** The column text of an effect profile whose `tool_input` is the row's `tool_input`. */
export function effectProfileColumn(profile: { tool_input?: unknown }): string {
  const { tool_input: _sameAsRow, ...rest } = profile;
  return JSON.stringify(rest);
}

/**
 * The effect profile a column holds, its tool input put back (after `tool_name`,
 * where the profile declares it). A column written before the input left it
 * still carries its own and is returned as stored.
 */
export function effectProfileFromColumn(
  column: string | null,
  toolInput: unknown,
): Record<string, unknown> | null {
  if (column === null) return null;
  const stored = JSON.parse(column) as Record<string, unknown>;
  if ('tool_input' in stored) return stored;
  return { tool_name: stored.tool_name, tool_input: toolInput, ...stored };
}

/**
 * Durations as the command lines take them (`24h`, `90s`, `500ms`): one
 * syntax and one wording for every Airlock command (`airlock serve`, the
 * operator commands, `airlock executor|gateway mcp`).
 */

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The shortest and longest a duration flag accepts, in milliseconds. */
export interface DurationBounds {
  min: number;
  max: number;
}

/** Writes milliseconds the way a flag takes them: `24h`, `90s`, `1500ms`. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % UNITS[unit]! === 0) return `${ms / UNITS[unit]!}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * Parses a duration with its unit, such as `24h`, `30m`, `90s` or `1500ms`:
 * a bare number is refused (is `24` hours or milliseconds?).
 * @throws Error naming `source` (a flag or variable) when the text is not a
 *   duration with a unit, or falls outside `bounds` (default: 1 ms and up).
 */
export function parseDuration(
  text: string,
  source = 'a duration',
  bounds: DurationBounds = { min: 1, max: Number.MAX_SAFE_INTEGER },
): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) {
    const hint = /^\d+(?:\.\d+)?$/.test(text.trim())
      ? ` (a number needs its unit: ${text.trim()}s? ${text.trim()}ms?)`
      : '';
    throw new Error(
      `${source} wants a duration such as 24h, 30m, 90s or 500ms, not "${text}"${hint}`,
    );
  }
  const value = Math.round(Number(match[1]) * UNITS[match[2]!]!);
  if (!(value >= bounds.min && value <= bounds.max)) {
    throw new Error(
      `${source} must be between ${formatDuration(bounds.min)} and ${formatDuration(bounds.max)}, not "${text}"`,
    );
  }
  return value;
}

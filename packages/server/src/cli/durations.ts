const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration such as `24h`, `90s`, `1500ms` or a bare number of milliseconds.
 * @throws Error when the text is not a positive duration.
 */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration (use e.g. 24h, 30m, 90s, 500ms)`);
  const value = Number(match[1]) * UNITS[match[2] ?? 'ms']!;
  if (!(value >= 1) || !Number.isSafeInteger(Math.round(value))) {
    throw new Error(`"${text}" is not a positive duration`);
  }
  return Math.round(value);
}

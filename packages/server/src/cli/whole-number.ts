/**
 * A whole number written in plain decimal digits, from `min` to `max`; null for
 * anything else (`1e3`, `0x10`, `''`, `-1`, ` 5`, or a number out of range), which
 * `Number()` would read as some number. The callers say what was wrong in their own words.
 */
export function plainWholeNumber(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

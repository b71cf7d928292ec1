/**
 * A flag's value as an error message shows it after "not": the text itself,
 * or `an empty value` for `--flag=` (which read as a message cut short).
 */
export function shownValue(text: string): string {
  return text === '' ? 'an empty value' : text;
}

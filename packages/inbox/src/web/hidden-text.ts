import { hasHiddenCharacters } from '@airlock/sdk';

/**
 * A run of blanks that can push what follows out of view: 8 or more after
 * other text on its line (where `ok=1          ; rm -rf ~` hides its end), or
 * 40 or more anywhere. Indentation shorter than that is left alone.
 */
const LONG_BLANKS = /[^\s][ \t]{8,}|[ \t]{40,}/;

/** Every string of a value: its own text, or its keys and items, recursively. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => [
      key,
      ...stringsOf(item),
    ]);
  }
  return [];
}

/**
 * The warning a card puts above a call whose name or input reads other
 * than it runs: characters that change how text reads without showing
 * (bidirectional controls, zero-width ones), or long runs of blanks that
 * push text out of view. Both are shown as marks (`⟨U+2067⟩`, `⟨300
 * blanks⟩`); null when there is neither.
 */
export function hiddenTextWarning(toolName: string, input: unknown): string | null {
  // Each string as sent, not as JSON writes it: JSON escapes a carriage return or an escape.
  const strings = stringsOf(input);
  const hidden = [toolName, ...strings].some((text) => hasHiddenCharacters(text));
  const blanks = strings.some((text) => LONG_BLANKS.test(text));
  if (!hidden && !blanks) return null;
  const what = [
    hidden ? 'characters that change how text reads without showing (shown as ⟨U+…⟩)' : null,
    blanks ? 'long runs of blanks that push text out of view (shown as ⟨N blanks⟩)' : null,
  ].filter((part) => part !== null);
  return `This call holds ${what.join(' and ')}. What runs is the text as sent.`;
}

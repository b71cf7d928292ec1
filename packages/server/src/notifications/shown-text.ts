import { shortened, visibleText } from '@airlock/core';

/**
 * Text a model wrote (a tool's name, a question, a command) as a notice shows it to a person:
 * hidden characters and padding as marks (visibleText; with `oneLine`, tab and newline too),
 * then `escape`d for the surface, in at most `max` characters with its end kept when it is cut
 * (the end of a command is where `; rm -rf /` would hide). Escaping and the cut's own mark
 * lengthen a text, so it is cut shorter until the result fits.
 */
export function shownWithin(
  text: string,
  max: number,
  options: { oneLine?: boolean; escape?: (text: string) => string } = {},
): string {
  const visible = visibleText(text, { oneLine: options.oneLine ?? false });
  const escaped = options.escape ?? ((plain: string) => plain);
  let budget = max;
  for (;;) {
    const shown = escaped(shortened(visible, budget));
    if (shown.length <= max || budget < 64) return shown.slice(0, max);
    budget = Math.floor(budget * (max / shown.length)) - 8;
  }
}

/*
 * `@airlock/core/text`: what a person approves must be what runs. An agent writes the text an
 * approval shows (a command, a tool's name, an input's keys: in the inbox, Slack, email), and
 * some characters change how text reads without showing themselves: bidirectional controls reorder what follows (`echo "⁧"; rm -rf ~; echo "#⁩"`
 * reads as an echo), zero-width ones hide, and thousands of blanks or empty lines push the
 * dangerous part off the screen. Every such run is shown as a visible mark instead.
 */

/**
 * Controls a terminal or a browser acts on instead of showing: C0 but tab and newline, DEL,
 * C1, the Arabic letter mark, zero-width characters, line and paragraph separators, the
 * bidirectional embeddings, overrides and isolates, word joiners and the byte order mark;
 * and characters that draw nothing: the soft hyphen, the combining grapheme joiner, the
 * Hangul fillers, the Mongolian vowel separator, and the tag characters (U+E0000-E007F,
 * which spell ASCII no one sees: text smuggled to a model past the person reading). Variation
 * selectors are left alone: every coloured emoji carries one.
 */
const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]|\u034f/gu;

/**
 * Half of a UTF-16 pair standing alone, which a browser draws as a replacement character (read
 * by code point, a pair is the character it spells and is left as sent). Marked when shown;
 * a store refuses it (`not_unicode`) wherever it keeps text, so it is no hidden character.
 */
const LONE_SURROGATE = /[\ud800-\udfff]/gu;

/** Runs of blanks long enough to hide what follows on a line. */
const BLANK_RUN = /[ \t]{8,}/g;
/** Runs of two empty lines or more (lines of blanks count as empty). */
const EMPTY_LINES = /(?:[ \t]*\n){3,}/g;

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Tab and newline, which a one-line view (a name, a subject, a headline) shows as marks. */
const LINE_BREAKING = /[\t\n]/g;

/**
 * Text as it should be shown to a person deciding on it: each hidden character as `⟨U+202E⟩`,
 * a run of 8 blanks or more as `⟨N blanks⟩`, two empty lines or more as one `⟨N empty lines⟩`
 * line. With `oneLine` (a name, a mail's subject), tab and newline are marks too, so the text
 * cannot start a line of what quotes it. Everything else is kept as sent.
 */
export function visibleText(text: string, options: { oneLine?: boolean } = {}): string {
  const marked = text
    .replace(HIDDEN, (character) => `⟨${codePoint(character)}⟩`)
    .replace(LONE_SURROGATE, (character) => `⟨${codePoint(character)}⟩`);
  return (
    options.oneLine
      ? marked.replace(LINE_BREAKING, (character) => `⟨${codePoint(character)}⟩`)
      : marked
  )
    .replace(BLANK_RUN, (run) => ` ⟨${run.length} blanks⟩ `)
    .replace(EMPTY_LINES, (run) => `\n⟨${run.split('\n').length - 2} empty lines⟩\n`);
}

/**
 * The first character of a text that changes how it reads without showing itself, as its code
 * point (`U+202E`), or null. With `oneLine`, tab and newline count too (a name is one line).
 */
export function firstHiddenCharacter(
  text: string,
  options: { oneLine?: boolean } = {},
): string | null {
  HIDDEN.lastIndex = 0;
  const hidden = HIDDEN.exec(text);
  const breaking = options.oneLine ? /[\t\n]/.exec(text) : null;
  const first =
    hidden && breaking ? (hidden.index < breaking.index ? hidden : breaking) : (hidden ?? breaking);
  return first ? codePoint(first[0]) : null;
}

/** Whether a text holds characters that change how it reads without showing themselves. */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  return HIDDEN.test(text);
}

/**
 * A text cut to `max` characters for a one-line view, never hiding its end: the start, the
 * number of characters left out, and the last part (where `; rm -rf /` would be).
 */
export function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  // Cut between characters, never inside a pair of UTF-16 units (an emoji).
  let head = max - Math.floor(max * 0.35);
  if (isHighSurrogate(text.charCodeAt(head - 1))) head -= 1;
  let tailStart = text.length - Math.floor(max * 0.35);
  if (isHighSurrogate(text.charCodeAt(tailStart - 1))) tailStart += 1;
  const left = tailStart - head;
  return `${text.slice(0, head)} …⟨${left} more⟩… ${text.slice(tailStart)}`;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

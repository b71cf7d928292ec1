// C0 and C1 control characters, DEL, and the Unicode line and paragraph separators: anything that
// can move a terminal's cursor, start an escape sequence, or start a new line in a CI log.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const CONTROL_BUT_TAB = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;

const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from a rule file made safe to print as one terminal line: each
 * control character becomes its JSON escape (`\n`, `\u001b`), as the user
 * would write it in the file. `which` (a global pattern) narrows the
 * characters escaped.
 */
export function escapeForTerminal(text: string, which: RegExp = CONTROL): string {
  return text.replace(
    which,
    (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A quoted source line made safe to print: each control character but tab
 * becomes one visible character (its Unicode control picture, or U+FFFD),
 * so the caret line under it still lines up.
 */
export function sourceLineForTerminal(text: string): string {
  return text.replace(CONTROL_BUT_TAB, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? '\u2421' : '\uFFFD';
  });
}

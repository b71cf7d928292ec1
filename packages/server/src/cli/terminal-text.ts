/**
 * Characters a terminal acts on instead of showing: C0 controls but the tab
 * (escape sequences, a carriage return that overwrites a line, a newline that
 * forges one), DEL, C1 controls (U+009B is a CSI of its own) and the
 * bidirectional marks and overrides that reorder what follows them.
 */
const TERMINAL_CONTROLS =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from the kernel (a tool name, a reason, a label, an error's detail) as
 * a person's terminal may show it: every control character written as an
 * escape (`\x1b`, `\n`, `\u202e`), so it reads as what it is and does nothing.
 */
export function forTerminal(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (character) => {
    if (character === '\n') return '\\n';
    if (character === '\r') return '\\r';
    const code = character.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

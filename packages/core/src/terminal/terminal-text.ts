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

/** What a kernel's refusal carries: its stable code, its detail, and the problems it found. */
export interface RefusalText {
  code: string;
  detail: string;
  problems?: readonly { code: string; pointer: string; message: string }[] | undefined;
}

/**
 * A refusal of the kernel as lines for a person's terminal: `code: detail`, then one line a
 * problem (`  /pointer: message (code)`), so a refused declaration says what to fix. The kernel
 * already bounds how many problems it lists; every line has its control characters escaped.
 */
export function refusalLines(refusal: RefusalText): string[] {
  return [
    forTerminal(`${refusal.code}: ${refusal.detail}`),
    ...(refusal.problems ?? []).map((problem) =>
      forTerminal(`  ${problem.pointer || '/'}: ${problem.message} (${problem.code})`),
    ),
  ];
}

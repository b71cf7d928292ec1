/**
 * Characters past the C0 controls a terminal acts on instead of showing: DEL, the C1 controls
 * (U+009B is a CSI of its own) and the bidirectional marks and overrides that reorder what
 * follows them. JSON.stringify leaves these raw (it escapes the C0 controls itself).
 */
const ABOVE_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/**
 * Characters a terminal acts on instead of showing: C0 controls but the tab
 * (escape sequences, a carriage return that overwrites a line, a newline that
 * forges one), and those {@link ABOVE_C0}.
 */
const TERMINAL_CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000a-\\u001f${ABOVE_C0}]`, 'g');

/** What JSON.stringify leaves raw that a terminal acts on ({@link ABOVE_C0}). */
const RAW_IN_JSON = new RegExp(`[${ABOVE_C0}]`, 'g');

/**
 * A value as JSON (`indent` spaces, or one line without), the characters a terminal would act
 * on written as `\u` escapes: a person reads `--json` on a terminal too, and a parser reads
 * the same value back. These can only stand inside a string, where an escape is the same
 * character.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    RAW_IN_JSON,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

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
 * problem (`  /pointer: message (code)`), so a refused declaration says what to fix. A lone
 * problem the detail already says (`/run_id: Too big`, maybe followed by `; ...`) is not said
 * again: its code ends the one line. The kernel already bounds how many problems it lists;
 * every line has its control characters escaped.
 */
export function refusalLines(refusal: RefusalText): string[] {
  const problems = refusal.problems ?? [];
  const said = (problem: { pointer: string; message: string }) => {
    const text = `${problem.pointer || '/'}: ${problem.message}`;
    return refusal.detail === text || refusal.detail.startsWith(`${text};`);
  };
  const [lone] = problems;
  if (problems.length === 1 && lone && said(lone)) {
    return [forTerminal(`${refusal.code}: ${refusal.detail} (${lone.code})`)];
  }
  if (problems.length === 1 && lone && refusal.detail === lone.message) {
    // The detail is the problem's message without its pointer: one line, the pointer put back.
    return [forTerminal(`${refusal.code}: ${lone.pointer || '/'}: ${lone.message} (${lone.code})`)];
  }
  return [
    forTerminal(`${refusal.code}: ${refusal.detail}`),
    ...problems.map((problem) =>
      forTerminal(`  ${problem.pointer || '/'}: ${problem.message} (${problem.code})`),
    ),
  ];
}

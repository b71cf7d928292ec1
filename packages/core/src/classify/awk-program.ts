import type { ActionTag } from './tags.js';

/** awk options that take a value: `-F :`, `-v name=value` (attached too: `-F:`). */
const VALUED = new Set(['-F', '-v', '--field-separator', '--assign']);

/** Where a `/` starts a regular expression rather than a division: after these, or at the start. */
const BEFORE_REGEX = /[(,{;!~&|}\n]$/;

/**
 * The program text with its strings and regular expressions blanked
 * (`"a|b"` and `/a|b/` become `""` and `//`), so a `|` or `>` inside them is
 * not read as a pipe or a redirection.
 */
function blankLiterals(program: string): string {
  let out = '';
  for (let index = 0; index < program.length; index++) {
    const char = program[index]!;
    const regex = char === '/' && BEFORE_REGEX.test(out.trimEnd() || '(');
    if (char !== '"' && !regex) {
      out += char;
      continue;
    }
    out += `${char}${char}`;
    for (index++; index < program.length && program[index] !== char; index++) {
      if (program[index] === '\\') index++;
    }
  }
  return out;
}

/**
 * The tags of an awk program beyond reading: `system()`, a pipe to or
 * from a command (`print | "sh"`, `cmd | getline`, gawk's `|&`) run
 * commands that are not read (`unknown`); `print > FILE` and `>>` write a
 * file. A program from a file (`-f`) is `unknown`.
 */
export function awkTags(args: readonly string[], tags: Set<ActionTag>): void {
  const programs: string[] = [];
  let fromFile = false;
  let operand = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') operand = true;
    else if (!operand && VALUED.has(arg)) index++;
    else if (!operand && (arg === '-f' || arg.startsWith('--file'))) fromFile = true;
    else if (!operand && (arg === '-e' || arg === '--source')) programs.push(args[++index] ?? '');
    else if (!operand && arg.startsWith('-') && arg !== '-') continue;
    else if (programs.length === 0 && !fromFile) {
      programs.push(arg);
      break;
    } else break;
  }
  if (fromFile) tags.add('unknown');
  for (const program of programs.map(blankLiterals)) {
    if (/\bsystem\s*\(/.test(program) || /(^|[^|])\|(?!\|)/.test(program)) tags.add('unknown');
    if (/\bprintf?\b[^;{}\n]*>/.test(program)) tags.add('write');
  }
}

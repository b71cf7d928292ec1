import { namesLongOption } from './flags.js';
import type { ActionTag } from './tags.js';

/**
 * awk's long options, each taking a value (`--assign=x=1`, `--source 'prog'`);
 * any prefix is accepted. Those that load code come first, so an ambiguous
 * prefix (`--fi`, which gawk refuses) reads as the worse one.
 */
const LONG = [
  '--source',
  '--file',
  '--exec',
  '--include',
  '--load',
  '--field-separator',
  '--assign',
];
/** awk's short options taking a value, apart or attached (`-F:`, `-fprog.awk`). */
const SHORT: Record<string, string> = {
  F: '--field-separator',
  v: '--assign',
  e: '--source',
  f: '--file',
  E: '--exec',
  i: '--include',
  l: '--load',
};

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

/** What awk's options say: the program texts given, and what it loads from elsewhere. */
interface AwkOptions {
  readonly programs: string[];
  /** A program, library or extension from a file (`-f`, `-E`, `-i`, `-l`). */
  loads: boolean;
  /** gawk's `-i inplace`: each file is replaced by what the program prints. */
  inplace: boolean;
}

function option(name: string, value: string, options: AwkOptions): void {
  if (name === '--source') options.programs.push(value);
  else if (name === '--include' && /^inplace(\.awk)?$/.test(value)) options.inplace = true;
  else if (name !== '--field-separator' && name !== '--assign') options.loads = true;
}

/** Reads awk's options up to the program (or the first operand after `-f`/`-e`). */
function readOptions(args: readonly string[]): AwkOptions {
  const options: AwkOptions = { programs: [], loads: false, inplace: false };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      if (options.programs.length === 0 && !options.loads)
        options.programs.push(args[index + 1] ?? '');
      break;
    }
    if (arg.startsWith('--')) {
      const name = LONG.find((long) => namesLongOption(arg, long));
      if (name === undefined) continue;
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : (args[++index] ?? '');
      option(name, value, options);
    } else if (arg.startsWith('-') && arg !== '-') {
      // In a cluster (`-vx=1`, `-fprog.awk`), a valued letter takes the rest, or the next word.
      for (let at = 1; at < arg.length; at++) {
        const name = SHORT[arg[at]!];
        if (name === undefined) continue;
        option(name, at + 1 < arg.length ? arg.slice(at + 1) : (args[++index] ?? ''), options);
        break;
      }
    } else {
      if (options.programs.length === 0 && !options.loads) options.programs.push(arg);
      break;
    }
  }
  return options;
}

/**
 * The tags of an awk program beyond reading: `system()`, a pipe to or
 * from a command (`print | "sh"`, `cmd | getline`, gawk's `|&`) and gawk's
 * indirect calls (`@f()`, which may name `system`) run commands that are
 * not read (`unknown`); `print > FILE` and `>>` write a file. A program,
 * library or extension from a file (`-f`, `--exec`, `-i`, `-l`, `@include`,
 * `@load`) is `unknown`. `-i inplace` replaces each file with what the
 * program prints: `write`, `delete`, `destructive`, as an emptying `>` is.
 */
export function awkTags(args: readonly string[], tags: Set<ActionTag>): void {
  const { programs, loads, inplace } = readOptions(args);
  if (loads) tags.add('unknown');
  if (inplace) {
    tags.add('write');
    tags.add('delete');
    tags.add('destructive');
  }
  for (const program of programs.map(blankLiterals)) {
    if (/\bsystem\s*\(/.test(program) || /(^|[^|])\|(?!\|)/.test(program)) tags.add('unknown');
    if (/@[A-Za-z_][\w:]*\s*\(/.test(program) || /@(include|load)\b/.test(program)) {
      tags.add('unknown');
    }
    if (/\bprintf?\b[^;{}\n]*>/.test(program)) tags.add('write');
  }
}

/** A string literal of awk (`"rm -rf x"`), escapes kept. */
const LITERAL = /"((?:[^"\\\n]|\\.)*)"/g;
/** Literals, maybe joined (`"rm -rf " "x"`), given to `system()`, piped to `getline` or printed to. */
const LITERALS = String.raw`((?:"(?:[^"\\\n]|\\.)*"\s*)+)`;
const RUNS_LITERALS = [
  new RegExp(String.raw`\bsystem\s*\(\s*${LITERALS}\)`, 'g'),
  new RegExp(String.raw`${LITERALS}\|\s*getline`, 'g'),
  new RegExp(String.raw`(?<!\|)\|&?(?!\|)\s*${LITERALS}`, 'g'),
];

/** The text of joined literals, as awk builds it (`\n` and `\t`; other escapes give their character). */
function literalText(literals: string): string {
  return [...literals.matchAll(LITERAL)]
    .map((match) =>
      match[1]!.replace(/\\(.)/gs, (_, char: string) =>
        char === 'n' ? '\n' : char === 't' ? '\t' : char,
      ),
    )
    .join('');
}

/**
 * The commands an awk program runs that its text spells out: `system("rm -rf x")`, `"cmd" |
 * getline`, `print | "cmd"` (a command built at run time stays `unknown`, see {@link awkTags}).
 */
export function awkCommandLines(args: readonly string[]): string[] {
  const lines: string[] = [];
  for (const program of readOptions(args).programs) {
    for (const pattern of RUNS_LITERALS) {
      for (const match of program.matchAll(pattern)) lines.push(literalText(match[1]!));
    }
  }
  return lines.filter((line) => line.trim() !== '');
}

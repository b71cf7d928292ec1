import { hasFlag, namesLongOption } from './flags.js';
import { readSedScript } from './sed-script.js';
import { STANDARD_STREAM } from './streams.js';
import type { ActionTag } from './tags.js';

const SED_VALUED = new Set(['-e', '--expression', '-f', '--file', '-l', '--line-length']);
const SED_LONG = ['--expression', '--file', '--line-length'];

/** An option's name, a long one spelled out when abbreviated (`--exp=1d` is `--expression`). */
function sedOption(arg: string): string {
  const name = arg.split('=')[0]!;
  if (!arg.startsWith('--')) return name;
  return SED_LONG.find((long) => namesLongOption(arg, long)) ?? name;
}

/** sed's scripts (`-e`, `--expression`, or its first operand), and whether `-f` gives one from a file. */
export function sedScripts(
  args: readonly string[],
  inPlace = args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || hasFlag([arg], '--in-place')),
): { scripts: string[]; scriptFile: boolean } {
  const scripts: string[] = [];
  const operands: string[] = [];
  let scriptFile = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const name = sedOption(arg);
    if (SED_VALUED.has(name)) {
      const value =
        arg.includes('=') && arg.startsWith('--') ? arg.slice(arg.indexOf('=') + 1) : args[++index];
      if (name === '-e' || name === '--expression') scripts.push(value ?? '');
      if (name === '-f' || name === '--file') scriptFile = true;
    } else if (/^-[a-zA-Z]*e./.test(arg) && !arg.startsWith('--')) {
      scripts.push(arg.slice(arg.indexOf('e') + 1));
    } else if (!arg.startsWith('-') || arg === '') operands.push(arg);
  }
  // Without -e or -f the first operand is the script (`sed -i '' 'd' f` on macOS: the second).
  if (scripts.length === 0 && !scriptFile) {
    scripts.push(operands[0] === '' && inPlace ? (operands[1] ?? '') : (operands[0] ?? ''));
  }
  return { scripts, scriptFile };
}

/**
 * `sed`: it prints (`read`), and with `-i` edits in place (`write`). Its
 * script is read command by command: deleting lines in place (`d`, `c`,
 * `q`, or `-n`, which keeps only what is printed) loses content for good; `w FILE` (a command, or a flag of `s`) empties and writes a file;
 * `e` runs a shell command: the pattern space (bare, or the flag of `s`), which is not read, or
 * the command after it, which laterCommands reads (see {@link sedScripts}).
 * A script from a file (`-f`), or one that cannot be read, is `unknown`.
 * `--sandbox` refuses `e`, `w` and `r`, so under it they do nothing.
 */
function sedTags(args: readonly string[], tags: Set<ActionTag>): void {
  const inPlace = args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || hasFlag([arg], '--in-place'));
  tags.add(inPlace ? 'write' : 'read');
  // `-n` prints only what the script prints: in place, every other line is gone.
  const quiet = args.some(
    (arg) => /^-[a-zA-Z]*n/.test(arg) || hasFlag([arg], '--quiet', '--silent'),
  );
  if (inPlace && quiet) {
    tags.add('delete');
    tags.add('destructive');
  }
  const { scripts, scriptFile } = sedScripts(args, inPlace);
  const sandboxed = args.includes('--sandbox');
  for (const script of scripts) {
    const effects = readSedScript(script);
    if (effects === null) {
      tags.add('unknown');
      continue;
    }
    if (effects.deletes && inPlace) {
      tags.add('delete');
      tags.add('destructive');
    }
    if (sandboxed) continue;
    if (effects.executes) tags.add('unknown');
    if (effects.writes.some((file) => !STANDARD_STREAM.test(file))) {
      tags.add('write');
      tags.add('delete');
      tags.add('destructive');
    }
  }
  if (scriptFile) tags.add('unknown');
}

/**
 * Programs that overwrite or empty a file's content in place: `dd of=`,
 * `truncate`, `sed -i` with a `d` command, `cp /dev/null FILE`. Adds their
 * tags and returns true; false for any other program.
 */
export function contentWriteTags(
  program: string,
  args: readonly string[],
  tags: Set<ActionTag>,
): boolean {
  if (program === 'dd') {
    const target = args.find((arg) => arg.startsWith('of='))?.slice(3);
    if (target === undefined || STANDARD_STREAM.test(target)) tags.add('read');
    else {
      tags.add('write');
      tags.add('destructive');
    }
    return true;
  }
  if (program === 'truncate') {
    tags.add('write');
    tags.add('destructive');
    const size = args.findIndex((arg) => arg === '-s' || arg === '--size');
    const value =
      size >= 0
        ? args[size + 1]
        : args.find((a) => /^(-s|--size=)/.test(a))?.replace(/^(-s|--size=)/, '');
    if (value === undefined || /^0+[KMGTPEZYkmgtpezy]?(i?B)?$/.test(value)) tags.add('delete');
    return true;
  }
  if (program === 'sed') {
    sedTags(args, tags);
    return true;
  }
  if (program === 'cp' || program === 'install') {
    tags.add('write');
    const operands = args.filter((arg) => !arg.startsWith('-'));
    if (operands.slice(0, -1).includes('/dev/null') || hasFlag(args, '--remove-destination')) {
      tags.add('delete');
      tags.add('destructive');
    }
    return true;
  }
  return false;
}

/** The programs wget and aria2c run when their options say so. */
import type { EmbeddedCommands } from './embedded.js';
import { namesLongOption, optionValues } from './flags.js';

/** Downloaders with options naming a program they run. */
export const DOWNLOADERS: ReadonlySet<string> = new Set(['wget', 'aria2c']);

/** aria2c's hooks, each a program it runs with the download's id and files. */
const ARIA2_HOOKS = [
  '--on-bt-download-complete',
  '--on-download-complete',
  '--on-download-error',
  '--on-download-pause',
  '--on-download-start',
  '--on-download-stop',
];

/**
 * A wgetrc command given with `-e` (`use_askpass=CMD`): wget matches its
 * name ignoring case, `-` and `_`, so `UseAskPass` is the same command.
 */
function wgetrcAskpass(command: string): string | undefined {
  const equals = command.indexOf('=');
  if (equals < 0) return undefined;
  const name = command
    .slice(0, equals)
    .replace(/[-_\s]/g, '')
    .toLowerCase();
  return name === 'useaskpass' ? command.slice(equals + 1).trim() : undefined;
}

/**
 * wget's credential helper (`--use-askpass=CMD`, or `-e use_askpass=CMD`),
 * which it runs for every URL before connecting, and aria2c's `--on-download-*`
 * hooks: each names a program, read as a command line. A program named
 * elsewhere is unknown: an empty `--use-askpass=` runs `WGET_ASKPASS` or
 * `SSH_ASKPASS`, and `wget --config` and `aria2c --conf-path` read a file
 * that may set either.
 */
export function downloaderCommands(
  program: string,
  args: readonly string[],
  out: EmbeddedCommands,
): void {
  const hooks = program === 'wget' ? ['--use-askpass'] : ARIA2_HOOKS;
  const via = program === 'wget' ? 'wget --use-askpass' : 'aria2c hook';
  for (const line of optionValues(args, hooks)) out.lines.push({ line, via });
  if (program === 'wget') {
    for (const command of optionValues(args, ['-e', '--execute'])) {
      const line = wgetrcAskpass(command);
      if (line) out.lines.push({ line, via: 'wget -e use_askpass' });
      else if (line === '')
        out.unknown ??= 'wget -e use_askpass= runs the program WGET_ASKPASS names';
    }
  }
  const config = program === 'wget' ? '--config' : '--conf-path';
  for (const arg of args) {
    if (arg === '--') break;
    if (arg.endsWith('=') && namesLongOption(arg, '--use-askpass') && program === 'wget') {
      out.unknown ??= 'wget --use-askpass= runs the program WGET_ASKPASS or SSH_ASKPASS names';
    } else if (namesLongOption(arg, config)) {
      out.unknown ??= `${program} ${config} reads options from a file, which may name programs to run`;
    }
  }
}

import type { EmbeddedCommands } from './embedded.js';
import { optionValues } from './flags.js';

/** Programs read as `read` that an option makes run a command. */
export const READER_PROGRAMS: ReadonlySet<string> = new Set([
  ...['sort', 'ack', 'ag', 'bat', 'batcat', 'fzf', 'cloc', 'less'],
]);

/** fzf's options whose value is a command it runs (a preview, a key binding, the shell for both) or that serve actions over HTTP. */
const FZF_COMMAND_OPTIONS = ['--preview', '--bind', '--with-shell', '--listen', '--listen-unsafe'];
/**
 * less's initial commands (`+CMD`, `++CMD`) that only move or search: a
 * search runs to the end of the text, so `+/a!b` is one; `+!CMD` runs CMD.
 */
const LESS_MOVES = /^([/?].*|[0-9]*[gGFpPejkbfduwyzqQ%]?)$/s;
/** cloc's `--vcs` values that name a version control system, not a command. */
const CLOC_VCS = /^(git|svn|auto)$/;

/** less's `+` initial commands: `+!CMD` runs CMD, and any other but a move or a search is unknown. */
function lessCommands(args: readonly string[], out: EmbeddedCommands): void {
  for (const arg of args) {
    if (arg === '--') return;
    if (!arg.startsWith('+')) continue;
    const command = arg.replace(/^\+\+?/, '');
    if (command.startsWith('!')) out.lines.push({ line: command.slice(1), via: 'less +!' });
    else if (!LESS_MOVES.test(command)) {
      out.unknown ??= 'less runs initial commands the classifier does not read';
    }
  }
}

/**
 * The commands a program the classifier reads as `read` runs when an option
 * says so: `sort --compress-program`, the pager of `ack`, `ag` and `bat`
 * (`--pager`), fzf's previews and bindings, cloc's `--vcs=COMMAND` and
 * `--extract-with`, less's `+!CMD`. A pager's command line and less's are
 * read; the others are unknown.
 */
export function readerCommands(
  program: string,
  args: readonly string[],
  out: EmbeddedCommands,
): void {
  if (program === 'sort') {
    // Called with no argument, or -d, to compress the temporary files of a large sort.
    if (optionValues(args, ['--compress-program']).length > 0) {
      out.unknown ??= 'sort --compress-program runs a program on its temporary files';
    }
  } else if (program === 'ack' || program === 'ag' || program === 'bat' || program === 'batcat') {
    for (const line of optionValues(args, ['--pager'])) {
      out.lines.push({ line, via: `${program} --pager` });
    }
  } else if (program === 'fzf') {
    // fzf takes no abbreviations: the option is named in full, its value given apart or after `=`.
    const named = args.find((arg) => FZF_COMMAND_OPTIONS.includes(arg.split('=')[0]!));
    if (named !== undefined) out.unknown ??= `fzf ${named.split('=')[0]} runs commands`;
  } else if (program === 'less') lessCommands(args, out);
  else if (program === 'cloc') {
    const vcs = optionValues(args, ['--vcs']);
    if (
      vcs.some((value) => !CLOC_VCS.test(value)) ||
      optionValues(args, ['--extract-with']).length > 0
    ) {
      out.unknown ??= 'cloc --vcs or --extract-with runs a command';
    }
  }
}

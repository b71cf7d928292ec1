import type { EmbeddedCommands } from './embedded.js';

const PLAIN_EDITORS = new Set(['nano', 'pico', 'micro', 'hx', 'helix', 'joe', 'mcedit']);
const EMACSES = new Set(['emacs', 'emacsclient', 'kak']);
const VIMS = new Set(['vi', 'vim', 'nvim', 'ex', 'view', 'gvim', 'vimdiff', 'nvi', 'evim']);
const EMACS_CODE = new Set([
  ...['--eval', '-eval', '--execute', '-l', '--load', '-f', '--funcall', '--script', '-x'],
]);

/** Ex commands that neither run a program nor evaluate code. */
const SAFE_EX =
  /^(se|set|setl|setlocal|syn|syntax|filetype|e|edit|q|quit|qa|qall|wq|wqa|x|xit|xa|xall|w|write|up|update|only|noh|nohlsearch|tabnew|sp|split|vs|vsplit)!?(\s+[^|!`]*)?$/;
const READ_SHELL = /^r(e(a(d)?)?)?\s*!/;
const WRITE_SHELL = /^w(r(i(t(e)?)?)?)?\s+!/;

/** One ex command string (`-c`, `--cmd`, `+cmd`): a shell line it runs, or unknown. */
function exCommand(text: string, out: EmbeddedCommands, via: string): void {
  const pieces = text.split('|');
  for (let index = 0; index < pieces.length; index++) {
    // Leading colons, blanks and a range (`%`, `1,$`, `'<,'>`) come before the command name.
    const piece = pieces[index]!.replace(/^[\s:]*[%.$,;0-9'<>+\-\s]*/, '');
    const shell = piece.startsWith('!')
      ? piece.slice(1)
      : READ_SHELL.test(piece) || WRITE_SHELL.test(piece)
        ? piece.slice(piece.indexOf('!') + 1)
        : null;
    if (shell !== null) {
      // Everything after `!` goes to the shell, bars included.
      out.lines.push({ line: [shell, ...pieces.slice(index + 1)].join('|'), via });
      return;
    }
    if (piece.trim() !== '' && !SAFE_EX.test(piece.trim())) {
      out.unknown ??= `${via} runs editor commands the classifier does not read`;
    }
  }
}

/** Whether a program is an editor {@link editorCommands} reads. */
export function isEditor(program: string): boolean {
  return VIMS.has(program) || EMACSES.has(program) || PLAIN_EDITORS.has(program);
}

/**
 * Editors told to run commands at start-up: `vim -c '!cmd'`, `vim +'r !cmd'`,
 * `nvim --cmd`, `vim -S script`, `emacs --eval`. Returns false for a program
 * that is no editor.
 */
export function editorCommands(
  program: string,
  args: readonly string[],
  out: EmbeddedCommands,
): boolean {
  if (VIMS.has(program)) {
    for (let index = 0; index < args.length; index++) {
      const arg = args[index]!;
      if (arg === '--') break;
      if (arg === '-c' || arg === '--cmd') exCommand(args[++index] ?? '', out, `${program} ${arg}`);
      else if (arg.startsWith('+') && arg.length > 1 && !/^\+([0-9]+|\/.*)$/.test(arg)) {
        exCommand(arg.slice(1), out, `${program} +`);
      } else if (/^-[Ssu]$/.test(arg) || /^-[eE]s$/.test(arg) || arg === '-e' || arg === '-E') {
        const file = /^-[Ssu]$/.test(arg) ? args[++index] : undefined;
        if (!/^(NONE|NORC|DEFAULTS)$/.test(file ?? '')) {
          out.unknown ??= `${program} ${arg} runs editor commands from a file or its input`;
        }
      }
    }
    return true;
  }
  if (EMACSES.has(program)) {
    if (
      args.some((arg) => EMACS_CODE.has(arg.split('=')[0]!) || (program === 'kak' && arg === '-e'))
    ) {
      out.unknown ??= `${program} evaluates code the classifier does not read`;
    }
    return true;
  }
  return PLAIN_EDITORS.has(program);
}

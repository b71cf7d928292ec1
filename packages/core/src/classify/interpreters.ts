import { catHeredocOutput } from './heredocs.js';
import type { LexedSegment, ShellWord } from './shell-lexer.js';
import { substitutionValue } from './substitution-values.js';

/** What an interpreter invocation runs, as far as the classifier can read it. */
export type Interpreted =
  | {
      readonly kind: 'lines';
      readonly lines: readonly string[];
      readonly via: string;
      /** The words after `sh -c SCRIPT`: the script's `$0`, `$1`... */
      readonly positional?: readonly ShellWord[];
    }
  | { readonly kind: 'words'; readonly words: readonly ShellWord[]; readonly via: string }
  | { readonly kind: 'unreadable'; readonly note: string; readonly lines?: readonly string[] };

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish']);
/** Multi-call programs: the first argument names the applet that runs (`busybox rm -rf x`, `shx rm -rf x`). */
const MULTI_CALL = new Set(['busybox', 'toybox', 'shx']);
const SHELL_VALUED = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);
const POWERSHELLS = new Set(['powershell', 'pwsh', 'powershell.exe', 'pwsh.exe']);
const SCRIPT_RUNTIMES = new Set(
  ['node', 'deno', 'ruby', 'perl', 'php', 'lua', 'osascript', 'nodejs', 'tclsh', 'Rscript'].map(
    (name) => name.toLowerCase(),
  ),
);

/** Whether descriptor 0 is also redirected from a file or descriptor (`bash <<<ls <file`): the last one wins. */
function readsOtherInput(segment: LexedSegment): boolean {
  return segment.redirections.some(
    ({ operator, fd }) =>
      ['<', '<&', '<>'].includes(operator) && (fd === undefined || Number(fd) === 0),
  );
}

/** `bash -lc '...'`, `sh -c`, `bash <<EOF`, `bash script.sh`. */
function shell(program: string, args: readonly ShellWord[], segment: LexedSegment): Interpreted {
  let commandMode = false;
  // `bash -s ARGS`: the script is the input, the words after the options its parameters.
  let inputMode = false;
  let index = 0;
  while (index < args.length) {
    const text = args[index]!.text;
    if (text === '--' || text === '-') {
      index++;
      break;
    }
    if (!/^[-+]/.test(text)) break;
    if (SHELL_VALUED.has(text)) index++;
    else if (/^-[a-zA-Z]+$/.test(text) && text.includes('c')) commandMode = true;
    else if (text === '--command') commandMode = true;
    if (/^-[a-zA-Z]+$/.test(text) && text.includes('s')) inputMode = true;
    index++;
  }
  const name = `${program} -c`;
  if (commandMode) {
    const script = args[index];
    if (!script) return { kind: 'unreadable', note: `${name} without a command` };
    if (script.dynamic) {
      // `bash -c "$(cat <<'EOF' ... EOF)"` runs the here-document's body: it is read instead
      // (its substitutions are the expansion's; reading both would double the work at each level).
      const output = catHeredocOutput(script.text);
      return {
        kind: 'unreadable',
        note: `${name} runs an expansion`,
        lines: [output ?? script.text],
      };
    }
    return { kind: 'lines', lines: [script.text], via: name, positional: args.slice(index + 1) };
  }
  const script = args[index];
  if (script !== undefined && !inputMode && !STDIN_FILE.test(script.text)) {
    return scriptFile(program, script);
  }
  return stdinScript(program, segment);
}

/**
 * A script file a shell or `source` runs: unreadable, but for a process substitution of echo or
 * printf of literal words (`bash <(echo rm x)`), whose text is the script.
 */
function scriptFile(program: string, script: ShellWord): Interpreted {
  const printed = /^\(.*\)$/s.test(script.text) ? substitutionValue(`$${script.text}`) : null;
  if (script.dynamic && printed !== null)
    return { kind: 'lines', lines: [printed], via: `${program} <(...)` };
  return { kind: 'unreadable', note: `${program} runs a script file` };
}

/** Paths that name the reading process's own input: a script read from one is its here-document. */
const STDIN_FILE = /^\/(dev\/stdin|dev\/fd\/0|proc\/self\/fd\/0)$/;

/**
 * The script a shell (or `source /dev/stdin`, or ssh's remote login shell)
 * reads from its input: its here-documents and here-strings; unreadable
 * when its input is anything else.
 */
export function stdinScript(program: string, segment: LexedSegment): Interpreted {
  if (segment.inputs.length === 0 || readsOtherInput(segment)) {
    return { kind: 'unreadable', note: `${program} runs commands from its input` };
  }
  const lines = segment.inputs.map((input) => input.text);
  const dynamic = segment.inputs.find((input) => input.dynamic && /[$`]/.test(input.text));
  if (dynamic)
    return { kind: 'unreadable', note: `${program} reads an expanded here-document`, lines };
  return { kind: 'lines', lines, via: `${program} <<` };
}

/** `python -m pip ...` runs a module as a program; `python -c` or a script is unreadable. */
function python(args: readonly ShellWord[]): Interpreted {
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.text;
    if (text === '-m') {
      const module = args.slice(index + 1);
      if (module.length === 0) return { kind: 'unreadable', note: 'python -m without a module' };
      return { kind: 'words', words: module, via: 'python -m' };
    }
    if (text === '-c') return { kind: 'unreadable', note: 'python runs inline code' };
    if (!text.startsWith('-')) break;
  }
  return { kind: 'unreadable', note: 'python runs a script' };
}

/** `powershell -Command "..."` is read; `-EncodedCommand` and `-File` are not. */
function powershell(args: readonly ShellWord[]): Interpreted {
  for (let index = 0; index < args.length; index++) {
    const option = args[index]!.text.toLowerCase();
    if (/^[-/](e|ec|enc|encodedcommand|encodedarguments)$/.test(option)) {
      return { kind: 'unreadable', note: 'powershell runs an encoded payload' };
    }
    if (/^[-/](f|file)$/.test(option))
      return { kind: 'unreadable', note: 'powershell runs a file' };
    if (/^[-/](c|command)$/.test(option)) {
      const line = args
        .slice(index + 1)
        .map((word) => word.text)
        .join(' ');
      return { kind: 'lines', lines: [line], via: 'powershell -Command' };
    }
    if (
      /^[-/](executionpolicy|ep|windowstyle|w|configurationname|workingdirectory|wd)$/.test(option)
    ) {
      index++;
    } else if (!option.startsWith('-') && !option.startsWith('/')) {
      const line = args
        .slice(index)
        .map((word) => word.text)
        .join(' ');
      return { kind: 'lines', lines: [line], via: 'powershell' };
    }
  }
  return { kind: 'unreadable', note: 'powershell runs commands from its input' };
}

/** `cmd /c "..."`. */
function cmd(args: readonly ShellWord[]): Interpreted {
  const index = args.findIndex((word) => /^\/[ck]$/i.test(word.text));
  if (index < 0) return { kind: 'unreadable', note: 'cmd runs commands from its input' };
  const line = args
    .slice(index + 1)
    .map((word) => word.text)
    .join(' ');
  return { kind: 'lines', lines: [line], via: 'cmd /c' };
}

/**
 * For a program that interprets code (a shell, python, PowerShell, `eval`,
 * `source`) or runs an applet (`busybox`, `toybox`), what it runs: command lines to classify, a module to classify
 * as a program, or a note saying why it cannot be read. Null for any other
 * program.
 */
export function interpret(
  program: string,
  args: readonly ShellWord[],
  segment: LexedSegment,
): Interpreted | null {
  if (SHELLS.has(program)) return shell(program, args, segment);
  if (MULTI_CALL.has(program) && args.length > 0) {
    return { kind: 'words', words: args, via: program };
  }
  if (/^(python|python[0-9][0-9.]*|py|pypy3?)$/.test(program)) return python(args);
  if (POWERSHELLS.has(program)) return powershell(args);
  if (program === 'cmd' || program === 'cmd.exe') return cmd(args);
  if (program === 'eval') {
    const line = args.map((word) => word.text).join(' ');
    const output = args.length === 1 ? catHeredocOutput(line) : null;
    return {
      kind: 'unreadable',
      note: 'eval runs text built at run time',
      lines: [output ?? line],
    };
  }
  if (program === 'source' || program === '.') {
    if (STDIN_FILE.test(args[0]?.text ?? '')) return stdinScript(program, segment);
    return args[0] === undefined
      ? { kind: 'unreadable', note: `${program} runs a script file` }
      : scriptFile(program, args[0]);
  }
  if (SCRIPT_RUNTIMES.has(program)) {
    const inline = args.some((word) => /^-[a-zA-Z]*[eE]$|^--eval$|^-p$|^--print$/.test(word.text));
    return { kind: 'unreadable', note: `${program} runs ${inline ? 'inline code' : 'a script'}` };
  }
  return null;
}

import { awkCommandLines } from './awk-program.js';
import { assignmentCommands, expansionCommands } from './command-variables.js';
import { sedScripts } from './content-writes.js';
import { DOWNLOADERS, downloaderCommands } from './downloader-commands.js';
import { editorCommands, isEditor } from './editor-commands.js';
import { type EmbeddedCommands, noEmbedded } from './embedded.js';
import { optionValues } from './flags.js';
import { gitTags } from './git-tags.js';
import { DECLARERS } from './line-variables.js';
import { READER_PROGRAMS, readerCommands } from './reader-commands.js';
import { readSedScript } from './sed-script.js';
import { SQL_ESCAPE_CLIENTS, sqlClientEscapes } from './sql-client-escapes.js';
import type { ActionTag } from './tags.js';
import { tarOptions } from './tar-listing.js';

/** `ssh -o` options whose value runs a command (here, or on the remote host). */
const SSH_COMMAND_OPTIONS = /^(proxycommand|localcommand|knownhostscommand|remotecommand)$/i;
const SHELL_STARTERS = new Set(['su', 'runuser', 'script', 'sg']);
const AWKS = ['awk', 'gawk', 'mawk', 'nawk'];
/** Every program {@link laterCommands} reads beyond the editors. */
const LATER_PROGRAMS = new Set([
  ...['git', 'trap', 'ssh', 'scp', 'sftp', 'sshfs', 'rsync', 'tar', 'gtar', 'bsdtar', 'man'],
  ...['alias', 'at', 'batch', 'crontab', ...DECLARERS, ...SHELL_STARTERS],
  ...['fd', 'fdfind', 'zip', 'rg', 'socat', 'mapfile', 'readarray', 'hash', ...READER_PROGRAMS],
  'compgen',
  ...SQL_ESCAPE_CLIENTS,
  ...DOWNLOADERS,
  ...AWKS,
  ...['sed', 'gsed'],
]);
/** fd's short options taking a value: in a cluster (`-Hx`), the rest of the word is the value. */
const FD_VALUED = new Set('etEdSjcoxX'.split(''));

/**
 * The words of fd's `-x`/`-X` command, given every way fd (clap) takes it:
 * `-x CMD`, `-xCMD`, `-Hx CMD`, `--exec CMD`, `--exec=CMD` (and `--exec-batch`).
 */
function fdExec(args: readonly string[]): { option: string; words: string[] } | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') return undefined;
    const long = /^(--exec(-batch)?)(=(.*))?$/s.exec(arg);
    if (long !== null) {
      const after = args.slice(index + 1);
      return { option: long[1]!, words: long[3] === undefined ? after : [long[4]!, ...after] };
    }
    if (!/^-[^-]/.test(arg)) continue;
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at]!;
      if (!FD_VALUED.has(letter)) continue;
      if (letter !== 'x' && letter !== 'X') break;
      const attached = arg.slice(at + 1).replace(/^=/, '');
      const after = args.slice(index + 1);
      return { option: `-${letter}`, words: attached === '' ? after : [attached, ...after] };
    }
  }
  return undefined;
}
const NOTHING: EmbeddedCommands = Object.freeze({ lines: [] });

/** `ssh -o ProxyCommand=...`, `scp -S program`, `sshfs -o ssh_command=...`. */
function sshOptions(program: string, args: readonly string[], out: EmbeddedCommands): void {
  for (const option of optionValues(args, ['-o'])) {
    const match = /^([A-Za-z_]+)\s*[= ]\s*(.*)$/s.exec(option);
    if (!match) continue;
    const key = match[1]!;
    if (
      (SSH_COMMAND_OPTIONS.test(key) || /^ssh_command$/i.test(key)) &&
      !/^none$/i.test(match[2]!)
    ) {
      out.lines.push({ line: match[2]!, via: `${program} -o ${key}` });
    }
  }
  // A configuration file may set ProxyCommand or LocalCommand, which run here.
  if (optionValues(args, ['-F']).some((file) => file !== 'none' && file !== '/dev/null')) {
    out.unknown ??= `${program} -F loads a configuration that may run commands`;
  }
  if (program === 'scp' || program === 'sftp') {
    for (const line of optionValues(args, ['-S'])) out.lines.push({ line, via: `${program} -S` });
  }
}

/** `trap 'cmd' SIGNAL...` runs cmd later; `trap`, `trap -p`, `trap - SIG` and `trap '' SIG` run nothing. */
function trapAction(args: readonly string[], out: EmbeddedCommands): void {
  const rest = args[0] === '--' ? args.slice(1) : args;
  if (rest.length < 2 || rest[0] === '-' || /^-[lp]$/.test(rest[0]!)) return;
  if (rest[0]!.trim() !== '') out.lines.push({ line: rest[0]!, via: 'trap' });
}

/** `su -c`, `runuser -c`, `script -c`, `sg group -c`: the command string runs in a shell. */
function commandOption(program: string, args: readonly string[], out: EmbeddedCommands): void {
  const lines = optionValues(args, ['-c', '--command', '--session-command']);
  for (const line of lines) out.lines.push({ line, via: `${program} -c` });
  if (lines.length > 0) return;
  if (program === 'sg' && args.length >= 2 && !args[0]!.startsWith('-')) {
    out.lines.push({ line: args.slice(1).join(' '), via: 'sg' });
  } else if (program !== 'script' || !args.some((arg) => /^-[a-z]*V$|^--version$/.test(arg))) {
    out.unknown ??= `${program} starts a shell that reads commands from its input`;
  }
}

/**
 * Commands a program runs later or elsewhere, named in its arguments (and,
 * for `at`, in its here-document): `trap`, git's command-valued settings,
 * `ssh -o ProxyCommand`, `rsync -e`, `tar --to-command`, editors' `-c`,
 * `man -P`, `alias`, command-valued variables given to `export`, `crontab`
 * tables, `fd -x`, `zip -TT`, `rg --pre`, `wget --use-askpass`, aria2c's hooks,
 * socat's `EXEC:` and `SYSTEM:`, database
 * clients' shell escapes (`psql -c '\\! CMD'`), and the
 * reading programs of reader-commands.ts (`sort --compress-program`, `bat --pager`...).
 * Git's own tags are added to `tags`.
 */
export function laterCommands(
  program: string,
  args: readonly string[],
  inputs: readonly { readonly text: string }[],
  tags: Set<ActionTag>,
): EmbeddedCommands {
  if (!LATER_PROGRAMS.has(program) && !isEditor(program)) return NOTHING;
  const out = noEmbedded();
  if (program === 'git') gitTags(args, tags, out);
  else if (program === 'trap') trapAction(args, out);
  else if (program === 'ssh' || program === 'scp' || program === 'sftp' || program === 'sshfs') {
    sshOptions(program, args, out);
  } else if (program === 'rsync') {
    for (const line of optionValues(args, ['-e', '--rsh']))
      out.lines.push({ line, via: 'rsync -e' });
    for (const line of optionValues(args, ['--rsync-path'])) {
      tags.add('external');
      out.lines.push({ line, via: 'rsync --rsync-path' });
    }
  } else if (program === 'tar' || program === 'gtar' || program === 'bsdtar') {
    const options = tarOptions(args);
    const names = [
      '--to-command',
      '-I',
      '--use-compress-program',
      '--rsh-command',
      '--rmt-command',
    ];
    for (const line of optionValues(options, names))
      out.lines.push({ line, via: `${program} option` });
    for (const line of optionValues(options, ['-F', '--info-script', '--new-volume-script'])) {
      out.lines.push({ line, via: `${program} volume script` });
    }
    for (const action of optionValues(options, ['--checkpoint-action'])) {
      if (action.startsWith('exec='))
        out.lines.push({ line: action.slice(5), via: 'tar --checkpoint-action' });
    }
  } else if (program === 'man') {
    for (const line of optionValues(args, ['-P', '--pager', '--html'])) {
      out.lines.push({ line, via: 'man pager' });
    }
    // `-H` takes its browser attached only (`man -Hfirefox ls`); alone it uses the default one.
    for (const arg of args) {
      if (/^-H./s.test(arg)) out.lines.push({ line: arg.slice(2), via: 'man -H' });
    }
  } else if (program === 'alias') {
    for (const arg of args) {
      const equals = arg.indexOf('=');
      if (equals > 0)
        out.lines.push({ line: arg.slice(equals + 1), via: `alias ${arg.slice(0, equals)}` });
    }
  } else if (DECLARERS.has(program)) {
    for (const arg of args) if (!arg.startsWith('-')) assignmentCommands(arg, out);
  } else if (program === 'at' || program === 'batch') {
    if (args.some((arg) => /^-[lrdc]$/.test(arg))) return out;
    if (inputs.length === 0) out.unknown = `${program} runs commands from its input or a file`;
    for (const input of inputs) out.lines.push({ line: input.text, via: program });
  } else if (program === 'crontab') {
    if (!args.some((arg) => /^-[lrei]+$/.test(arg))) {
      out.unknown = 'crontab installs a table of commands the classifier does not read';
    }
  } else if (program === 'fd' || program === 'fdfind') {
    // `fd -x CMD ARGS...` runs CMD for every result: every word after it, up to a `;`.
    const exec = fdExec(args);
    if (exec === undefined) return out;
    const end = exec.words.indexOf(';');
    const line = (end < 0 ? exec.words : exec.words.slice(0, end)).join(' ');
    if (line !== '') out.lines.push({ line, via: `${program} ${exec.option}` });
    else out.unknown = `${program} ${exec.option} names no command`;
  } else if (program === 'zip') {
    for (const line of optionValues(args, ['-TT', '--unzip-command'])) {
      out.lines.push({ line, via: 'zip -TT' });
    }
  } else if (program === 'socat') {
    // An EXEC: or SYSTEM: address runs its command (up to the address's options after a comma).
    for (const arg of args) {
      const address = /^(exec|system):(.*)$/is.exec(arg);
      const line = address?.[2]?.split(',')[0]?.trim();
      if (line) out.lines.push({ line, via: `socat ${address![1]!.toUpperCase()}:` });
    }
  } else if (program === 'hash') {
    // `hash -p PATH NAME`: NAME runs PATH from now on; what PATH is, at least, is read.
    for (const line of optionValues(args, ['-p'])) out.lines.push({ line, via: 'hash -p' });
  } else if (program === 'mapfile' || program === 'readarray') {
    // `-C CALLBACK` is evaluated as a command (with an index and a line appended) every `-c` lines.
    for (const line of optionValues(args, ['-C'])) out.lines.push({ line, via: `${program} -C` });
  } else if (program === 'compgen') {
    // `-C COMMAND` runs it for the completions; `-W LIST` is expanded, its substitutions run.
    for (const line of optionValues(args, ['-C'])) out.lines.push({ line, via: 'compgen -C' });
    for (const list of optionValues(args, ['-W'])) expansionCommands(list, 'compgen -W', out);
    if (optionValues(args, ['-F']).length > 0) out.unknown = 'compgen -F runs a shell function';
  } else if (program === 'rg') {
    if (optionValues(args, ['--pre']).length > 0) {
      out.unknown = 'rg --pre runs a program on every file it searches';
    }
  } else if (SQL_ESCAPE_CLIENTS.has(program)) {
    sqlClientEscapes(program, [...args, ...inputs.map((input) => input.text)], out);
  } else if (DOWNLOADERS.has(program)) downloaderCommands(program, args, out);
  else if (READER_PROGRAMS.has(program)) readerCommands(program, args, out);
  else if (SHELL_STARTERS.has(program)) commandOption(program, args, out);
  else if ((program === 'sed' || program === 'gsed') && !args.includes('--sandbox')) {
    for (const script of sedScripts(args).scripts) {
      for (const line of readSedScript(script)?.commands ?? [])
        out.lines.push({ line, via: 'sed e' });
    }
  } else if (AWKS.includes(program)) {
    for (const line of awkCommandLines(args)) out.lines.push({ line, via: `${program} system` });
  } else editorCommands(program, args, out);
  return out;
}

import { hasFlag, namesLongOption, optionValues } from './flags.js';
import type { ActionTag } from './tags.js';

/** tar's short options that take a value, in the old bundled form too (`tar cfI a.tar CMD`). */
const TAR_VALUED = new Set('bCfFgHIKLNTVX'.split(''));

/**
 * tar's arguments with an old-style first word (`cfI a.tar CMD`, no dash)
 * spelled out: each valued letter takes the next word, in order (`-c -f a.tar -I CMD`).
 */
export function tarOptions(args: readonly string[]): readonly string[] {
  const bundle = args[0];
  if (bundle === undefined || !/^[A-Za-z]+$/.test(bundle)) return args;
  const spelled: string[] = [];
  let next = 1;
  for (const letter of bundle) {
    spelled.push(`-${letter}`);
    if (TAR_VALUED.has(letter)) spelled.push(args[next++] ?? '');
  }
  return [...spelled, ...args.slice(next)];
}

/**
 * GNU tar 1.34's short options that, with `-t`, neither write nor run a
 * program of the command's choosing (the built-in decompressors are tar's
 * own). `-I` (a compressor), `-F` (a volume script), `-g`, `-L`, `-M` and
 * the other modes are left out.
 */
const LIST_SHORT = 'tvzjJZaRiBpsSPhOfCTXbKNHV';
/** Letters of {@link LIST_SHORT} whose value is the next word, or the rest of the cluster. */
const LIST_SHORT_VALUED = 'fCTXbKNHV';
/**
 * GNU tar's long options that read the same way. Left out: those that run a
 * command (`--to-command`, `--use-compress-program`, `--rsh-command`,
 * `--checkpoint-action`, `--info-script`), write a file (`--index-file`,
 * `--volno-file`) or touch what another mode does.
 */
const LIST_LONG = [
  ...['--list', '--file', '--verbose', '--gzip', '--gunzip', '--ungzip', '--bzip2', '--xz'],
  ...['--lzma', '--lzip', '--lzop', '--zstd', '--compress', '--uncompress', '--auto-compress'],
  ...['--no-auto-compress', '--directory', '--files-from', '--exclude', '--exclude-from'],
  ...['--exclude-vcs', '--exclude-caches', '--exclude-backups', '--wildcards', '--no-wildcards'],
  ...['--wildcards-match-slash', '--no-wildcards-match-slash', '--anchored', '--no-anchored'],
  ...['--ignore-case', '--no-ignore-case', '--null', '--no-null', '--numeric-owner', '--utc'],
  ...['--full-time', '--block-number', '--quoting-style', '--quote-chars', '--no-quote-chars'],
  ...['--show-transformed-names', '--show-stored-names', '--transform', '--xform'],
  ...['--strip-components', '--force-local', '--occurrence', '--totals', '--blocking-factor'],
  ...['--record-size', '--ignore-zeros', '--read-full-records', '--label', '--starting-file'],
  ...['--newer', '--after-date', '--newer-mtime', '--no-recursion', '--recursion', '--warning'],
  ...['--format', '--verbatim-files-from', '--no-verbatim-files-from', '--unquote'],
  ...['--no-unquote', '--absolute-names', '--dereference', '--same-order', '--preserve-order'],
  ...['--to-stdout'],
];

/** Whether every option in tar's spelled-out arguments reads (see {@link LIST_SHORT}) and one is `-t`/`--list`. */
function onlyListOptions(options: readonly string[]): boolean {
  let lists = false;
  for (let index = 0; index < options.length; index++) {
    const arg = options[index]!;
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      if (!LIST_LONG.some((name) => namesLongOption(arg, name))) return false;
      if (namesLongOption(arg, '--list')) lists = true;
    } else if (arg.startsWith('-') && arg !== '-') {
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at]!;
        if (!LIST_SHORT.includes(letter)) return false;
        if (letter === 't') lists = true;
        if (LIST_SHORT_VALUED.includes(letter)) {
          // The rest of the cluster is the value; a letter at its end takes the next word.
          if (at === arg.length - 1) index++;
          break;
        }
      }
    }
  }
  return lists;
}

/**
 * tar listing an archive (`tar -tf a.tar`, `tar tvzf a.tgz`, `tar --list`):
 * `read` when every option is one that only reads, and `network` too when the
 * archive is `HOST:PATH`, which GNU tar opens over a remote shell (unless
 * `--force-local`). Returns false, adding nothing, for any other tar command.
 */
export function tarListTags(args: readonly string[], tags: Set<ActionTag>): boolean {
  const options = tarOptions(args);
  if (!onlyListOptions(options)) return false;
  tags.add('read');
  const remote = optionValues(options, ['-f', '--file']).some((file) => /^[^/]*:/.test(file));
  if (remote && !hasFlag(options, '--force-local')) tags.add('network');
  return true;
}

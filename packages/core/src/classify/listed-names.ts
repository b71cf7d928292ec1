import { optionValues } from './flags.js';
import { programName } from './program-paths.js';

/*
 * Programs that read the names of the files they read from a list (a file or their input):
 * `tar -cf out.tar -T list`, `rsync --files-from=list . dest`, `zip out.zip -@ < list`,
 * `cpio -o < list`, `sort --files0-from=list`, `7z a out.7z @list`. The words say nothing of
 * which files those are.
 */

/** Whether a command reads the names of the files it reads from a list its words do not hold. */
export function readsListedNames(words: readonly string[]): boolean {
  const first = words[0];
  if (first === undefined) return false;
  const program = programName(first);
  const args = words.slice(1);
  switch (program) {
    case 'tar':
    case 'bsdtar':
      return optionValues(args, ['-T', '--files-from']).length > 0;
    case 'rsync':
      return optionValues(args, ['--files-from']).length > 0;
    case 'zip':
      return args.includes('-@') || args.includes('--names-stdin');
    case 'cpio':
      return args.some((arg) => /^-[a-zA-Z]*[op]/.test(arg) || arg === '--create');
    // GNU's `--files0-from=F` reads the names of the files it reads from F.
    case 'sort':
    case 'wc':
    case 'du':
      return optionValues(args, ['--files0-from']).length > 0;
    // A patch names the files it changes: `patch < fix.diff`, `git apply fix.diff` (but a check).
    case 'patch':
      return !args.some((arg) => arg === '--dry-run' || arg === '-C');
    case 'git':
      return (
        args[0] === 'apply' &&
        !args.some(
          (arg) => /^--(check|stat|numstat|summary)$/.test(arg) && !args.includes('--apply'),
        )
      );
    // `7z a out.7z @list` archives the files list names (7-Zip's list files).
    case '7z':
    case '7za':
    case '7zz':
      return args.some((arg) => arg.startsWith('@'));
    default:
      return false;
  }
}

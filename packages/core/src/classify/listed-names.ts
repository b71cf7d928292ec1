import { optionValues } from './flags.js';
import { programName } from './program-paths.js';

/*
 * Programs that read the names of the files they read from a list (a file or their input):
 * `tar -cf out.tar -T list`, `rsync --files-from=list . dest`, `zip out.zip -@ < list`,
 * `cpio -o < list`. The words say nothing of which files those are.
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
    default:
      return false;
  }
}

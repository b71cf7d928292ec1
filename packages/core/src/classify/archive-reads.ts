import type { ActionTag } from './tags.js';

/** Single-file compressors whose `-l`, `-t` and `-c` read the file and write no other. */
const COMPRESSORS = new Set([
  ...['gzip', 'gunzip', 'pigz', 'unpigz', 'bzip2', 'bunzip2', 'xz', 'unxz', 'lzma', 'unlzma'],
  ...['zstd', 'unzstd'],
]);
/** Their short options allowed in a read: list, test, to standard output, and harmless modifiers. */
const COMPRESSOR_LETTERS = /^-[ltcdkfvqnNr1-9]+$/;
/** Letters among them that make the command a read: list, test, or write to standard output. */
const COMPRESSOR_READS = /[ltc]/;
const COMPRESSOR_LONG = new Set([
  ...['--list', '--test', '--stdout', '--to-stdout', '--decompress', '--uncompress', '--keep'],
  ...['--force', '--verbose', '--quiet', '--no-name', '--name', '--recursive'],
]);
const COMPRESSOR_LONG_READS = new Set(['--list', '--test', '--stdout', '--to-stdout']);

/** unzip's options that list, test or print members (`-Z` is zipinfo's mode), and modifiers. */
const UNZIP_LETTERS = /^-[ltpvqzZ12smhTM]+$/;
const UNZIP_READS = /^-[^-]*[ltpzZ]/;

/**
 * Archive and compressor commands that only read: `gzip -l`/`-t`/`-c`
 * (`gunzip -c`, `xz -t`, `zstd -l`...), `unzip -l`/`-t`/`-p`/`-Z` and
 * `7z l`/`t`. Any option not listed keeps the program's `write` (a
 * compressor's `-o FILE`, zstd's `--rm`, unzip's `-d DIR`, 7z's `-o`).
 * True when it added `read`.
 */
export function archiveReadTags(
  program: string,
  args: readonly string[],
  tags: Set<ActionTag>,
): boolean {
  const options = args.filter((arg) => arg.startsWith('-') && arg !== '-');
  let reads = false;
  if (COMPRESSORS.has(program)) {
    const known = options.every((arg) =>
      arg.startsWith('--') ? COMPRESSOR_LONG.has(arg) : COMPRESSOR_LETTERS.test(arg),
    );
    reads =
      known &&
      options.some((arg) =>
        arg.startsWith('--') ? COMPRESSOR_LONG_READS.has(arg) : COMPRESSOR_READS.test(arg),
      );
  } else if (program === 'unzip') {
    reads =
      options.every((arg) => UNZIP_LETTERS.test(arg)) &&
      options.some((arg) => UNZIP_READS.test(arg));
  } else if (program === '7z' || program === '7za' || program === '7zz') {
    const verb = args.find((arg) => !arg.startsWith('-'));
    reads = (verb === 'l' || verb === 't') && !options.some((arg) => /^-(o|w|so|si)/i.test(arg));
  }
  if (reads) tags.add('read');
  return reads;
}

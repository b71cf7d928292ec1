/*
 * An archive unpacked into a folder (`unzip a.zip`, `unzip a.zip -d out`) writes the files it
 * holds, whose names the words do not say, anywhere under that folder (unzip drops `../`).
 * Package managers that pack a folder into an archive or publish it: `npm pack` puts every file
 * of the package (`.env` and `secrets/` too, unless its `files` or an ignore file leaves them
 * out, which is not read here) into a tarball in the working directory, as `tar czf x.tgz .`
 * does. recursive-reads.ts reads the folder through.
 */

/** Programs whose `pack` and `publish` verbs pack a folder (bun's is `bun pm pack`). */
const PACKERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const PACKING_VERBS = new Set(['pack', 'publish']);

/**
 * The folders a package manager packs (`.`, or the folder operand of `npm pack dir`), or null
 * for another command; `--dry-run` lists names and packs nothing. `args` follow the program.
 */
export function packedDirectories(program: string, args: readonly string[]): string[] | null {
  if (!PACKERS.has(program)) return null;
  const words = args.filter((arg) => !arg.startsWith('-'));
  const at = program === 'bun' && words[0] === 'pm' ? 1 : 0;
  if (!PACKING_VERBS.has(words[at] ?? '') || args.includes('--dry-run')) return null;
  const folders = words.slice(at + 1);
  return folders.length === 0 ? ['.'] : folders;
}

/** unzip's options that list, test or print the archive, writing no file. */
const UNZIP_READS_ONLY = /^-[a-zA-Z]*[ltvpzZ]/;

/** The folder an unzip writes the archive's files under (`.`, or its `-d` value), or null. */
export function unpackedDirectories(program: string, args: readonly string[]): string[] | null {
  if (program !== 'unzip') return null;
  if (args.some((arg) => !arg.startsWith('-d') && UNZIP_READS_ONLY.test(arg))) return null;
  const at = args.indexOf('-d');
  if (at >= 0) return [args[at + 1] ?? '.'];
  const glued = args.find((arg) => /^-d./.test(arg));
  return [glued === undefined ? '.' : glued.slice(2)];
}

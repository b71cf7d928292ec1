/*
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

/**
 * The lines of a Codex patch (`*** Begin Patch` ... `*** End Patch`) that name a file it adds,
 * changes, deletes or renames to. Codex trims each line before it reads a marker; spacing and
 * case are read loosely here too, so a line Codex would refuse may name a path (more is safer).
 */
const FILE_LINE = /^\*{3}\s*(?:(?:add|update|delete)\s+file|move\s+to)\s*:\s*(.*)$/i;

/**
 * The paths a Codex patch's text names, as written (relative to the call's working directory,
 * or absolute): every `*** Add File:`, `*** Update File:`, `*** Delete File:` and `*** Move to:`
 * line's; a hunk's lines (`+`, `-`, ` ` and `@@`) name none.
 */
export function patchPaths(text: string): string[] {
  const paths: string[] = [];
  for (const line of text.split('\n')) {
    const path = FILE_LINE.exec(line.trim())?.[1]?.trim();
    if (path !== undefined && path !== '') paths.push(path);
  }
  return paths;
}

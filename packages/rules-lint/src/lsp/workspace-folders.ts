import { filePath } from './document-lint.js';

/** The file paths of workspace folders given as `{ uri }` objects, ignoring anything malformed. */
function pathsOf(folders: unknown): string[] {
  if (!Array.isArray(folders)) return [];
  return folders.flatMap((folder) => {
    const uri = (folder as { uri?: unknown } | null)?.uri;
    const path = typeof uri === 'string' ? filePath(uri) : undefined;
    return path === undefined ? [] : [path];
  });
}

/** The file paths of the client's workspace folders at `initialize` (or its root), ignoring anything malformed. */
export function initialWorkspaceFolders(params: unknown): string[] {
  const { workspaceFolders, rootUri } = (params ?? {}) as {
    workspaceFolders?: unknown;
    rootUri?: unknown;
  };
  return Array.isArray(workspaceFolders) ? pathsOf(workspaceFolders) : pathsOf([{ uri: rootUri }]);
}

/**
 * The workspace folders after a `workspace/didChangeWorkspaceFolders` event:
 * the removed ones dropped, the added ones appended once. A malformed event
 * changes nothing it cannot read.
 */
export function changedWorkspaceFolders(current: readonly string[], event: unknown): string[] {
  const { added, removed } = (event ?? {}) as { added?: unknown; removed?: unknown };
  const gone = new Set(pathsOf(removed));
  const kept = current.filter((folder) => !gone.has(folder));
  for (const folder of pathsOf(added)) if (!kept.includes(folder)) kept.push(folder);
  return kept;
}

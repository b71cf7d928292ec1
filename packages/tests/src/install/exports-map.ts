/** One leaf of a package's `exports` map: the subpath, the conditions leading to it, the file. */
export interface ExportTarget {
  readonly subpath: string;
  readonly conditions: readonly string[];
  readonly target: string;
}

function leaves(value: unknown, conditions: string[], subpath: string): ExportTarget[] {
  if (typeof value === 'string') return [{ subpath, conditions, target: value }];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key.startsWith('.')
      ? leaves(inner, conditions, key)
      : leaves(inner, [...conditions, key], subpath),
  );
}

/** Every target of an `exports` map (a string, a conditions object or a subpath map). */
export function exportTargets(exports: unknown): ExportTarget[] {
  return leaves(exports, [], '.');
}

/** The specifier that imports a subpath of a package (`@a/b` and `./cli` -> `@a/b/cli`). */
export function specifierOf(name: string, subpath: string): string {
  return subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
}

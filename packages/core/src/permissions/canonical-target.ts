/** A path or URL a call names, in canonical form. */
export interface CanonicalTarget {
  readonly kind: 'path' | 'url';
  /** Rooted POSIX form for a path inside the project (`src/a.ts`), absolute for one outside. */
  readonly text: string;
  /** For a path: true when it lies inside the project root and rooted patterns may match it. */
  readonly rooted: boolean;
  /** For a path outside the project: true when it is a directory above the project root (`/`). */
  readonly holdsProject?: boolean;
  /** An absolute path read with no project root: it cannot be placed, so it may lie anywhere. */
  readonly withoutProjectRoot?: true;
  /**
   * For a path outside the project as written that lies inside it once case and Unicode
   * normalisation are set aside (`/REPO/src/a.ts` under `/repo`): its rooted form, which a
   * deny or ask reads (see target-coverage.ts); an allow never does.
   */
  readonly rootedWhenFolded?: string;
  /** The input text it came from. */
  readonly raw: string;
  /** For a URL: the call names too many URLs, or too long a one, to compare: it may be any. */
  readonly anyUrl?: true;
  /**
   * For a shell command's path: the command reads the directory through (`grep -r x src`), so
   * a rule reads it as a directory that may hold what its patterns match.
   */
  readonly readThrough?: true;
  /**
   * For a shell word with a wildcard (`s?crets/key`): its first wildcard segment (`s?crets`), the target
   * being the directory before it; the shell names every entry there the segment matches.
   */
  readonly globEntry?: string;
  /**
   * For a shell glob no recursive reader reads through: the word's last segment (`*.ts` of
   * `src/**` + `/*.ts`), which every name the shell gives it ends with.
   */
  readonly globLast?: string;
  /**
   * For a shell command's path: a directory the command works in (`cd DIR`, `git -C DIR`) or
   * lists the names of (`ls DIR`), which names a guarded path when it is one but reads nothing it
   * holds; so is a listing tool's directory (ToolTarget's `listing`).
   */
  readonly namedOnly?: true;
  /** For a tool's path: what its manifest says it names (ToolTarget's `names`; a glob reads as a directory). */
  readonly names?: 'file' | 'directory';
  /**
   * For a search's directory: the last segment of the glob every file it reads is named by
   * (`*.ts` of Grep's `glob: src/**` + `/*.ts`; ToolTarget's `name_filter`), or of each glob when
   * it reads the files several name (`*.ts` and `*.tsx` of `*.{ts,tsx}`).
   */
  readonly readsOnlyNames?: string | readonly string[];
}

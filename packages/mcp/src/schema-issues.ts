/** One problem a schema of the MCP SDK found: where, and what. */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** How many issues a line names. */
const ISSUES_SHOWN = 2;

/** A path of an issue as JavaScript writes it: `params.cursor`, `content[0]`, `_meta["a b"]`. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = String(key);
      if (/^[A-Za-z_$][\w$]*$/.test(name)) return index === 0 ? name : `.${name}`;
      return `[${JSON.stringify(name)}]`;
    })
    .join('');
}

/**
 * A schema's issues in one short line (`params.cursor: expected string,
 * received number`), the first two named and the rest counted; `fallback`
 * when there are none.
 */
export function issuesText(issues: readonly SchemaIssue[], fallback: string): string {
  const shown = issues.slice(0, ISSUES_SHOWN).map((issue) => {
    const reason = issue.message.replace(/^Invalid input: /, '');
    return issue.path.length > 0 ? `${pathText(issue.path)}: ${reason}` : reason;
  });
  const more = issues.length > ISSUES_SHOWN ? ` (and ${issues.length - ISSUES_SHOWN} more)` : '';
  return `${shown.join('; ') || fallback}${more}`;
}

/**
 * The issues of a schema's failure (a ZodError, which the MCP SDK throws
 * when an answer does not fit the schema it expected), or null for any
 * other error.
 */
export function schemaIssuesOf(error: unknown): readonly SchemaIssue[] | null {
  const issues = (error as { issues?: unknown } | null)?.issues;
  return error instanceof Error && Array.isArray(issues) ? (issues as SchemaIssue[]) : null;
}

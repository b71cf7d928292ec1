/*
 * A line that starts `cd DIR && ...` runs the rest in DIR or not at all: `cd docs && rg x`
 * reads docs/, never the directory it started in. Only a chain of `&&` says so: after `;`,
 * `||`, `&` or a newline a command runs even when the cd failed, in the directory it started in.
 */

/** `cd DIR &&` or `pushd DIR &&` at the start of a line, DIR a plain word (no quote, `$`, `~` or glob). */
const LEADING_CHANGE =
  /^\s*(?:builtin\s+)?(?:cd|pushd)\s+(?:--\s+)?([A-Za-z0-9._/@%+=:,][A-Za-z0-9._/@%+=:,-]*)\s*&&/;

/**
 * `mkdir [-p] DIR... &&` before the first cd (`mkdir -p build && cd build && cmake ..`): it
 * changes no directory, so the cds after it lead the rest of the line as well.
 */
const LEADING_MKDIR =
  /^\s*mkdir\s+(?:-[pv]+\s+)*(?:[A-Za-z0-9._/@%+=:,][A-Za-z0-9._/@%+=:,-]*\s+)*?[A-Za-z0-9._/@%+=:,][A-Za-z0-9._/@%+=:,-]*\s*&&/;

/** Text after which a command may run although a `cd` before it failed (`;`, `||`, `&`, a newline). */
const UNCHAINED = /[;\n()]|\|\||(^|[^&])&(?!&)/;

/**
 * The directories a line's leading `cd DIR &&` commands lead to, in order (`docs` of `cd docs
 * && rg x`): every later command of the line runs only once each succeeded. Empty when the line
 * does not start so, or holds anything but `&&` and pipes between its commands (a subshell's
 * parentheses too), so a command there may run where the line started.
 */
export function leadingDirectories(line: string): string[] {
  const found: string[] = [];
  let rest = line.replace(LEADING_MKDIR, '');
  for (let match = LEADING_CHANGE.exec(rest); match !== null; match = LEADING_CHANGE.exec(rest)) {
    found.push(match[1]!);
    rest = rest.slice(match[0].length);
  }
  return found.length > 0 && !UNCHAINED.test(rest) ? found : [];
}

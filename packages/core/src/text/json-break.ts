/**
 * Where `JSON.parse` stopped reading `text`, said without the text around it
 * (`" (line 3, column 14)"`, `" (an unexpected \"x\")"`, `" (it ends too
 * soon)"`, or nothing): V8's own message quotes the surrounding characters,
 * which in a configuration file may be an inline secret.
 */
export function whereJsonBroke(error: unknown, text: string): string {
  const message = (error as Error | null)?.message ?? '';
  const position = /at position (\d+)/.exec(message);
  if (position) {
    const before = text.slice(0, Number(position[1])).split('\n');
    return ` (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
  }
  const token = /^Unexpected token '(.)'/.exec(message);
  if (token) return ` (an unexpected ${JSON.stringify(token[1])})`;
  return /end of JSON input/.test(message) ? ' (it ends too soon)' : '';
}

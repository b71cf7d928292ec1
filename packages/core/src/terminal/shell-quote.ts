/**
 * A word as a POSIX shell reads it back unchanged, for a command a CLI prints
 * for a person to copy (`node '/home/ana/my tools/cli.js' token create
 * --data-dir '/srv/air lock'`): bare when it holds only characters no shell
 * treats specially, else in single quotes, each `'` written `'\''`.
 */
export function shellQuoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

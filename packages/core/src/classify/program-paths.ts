/**
 * A program named by a path runs the file at that path. In the system's
 * program folders that file is the program its name says (`/bin/rm` is
 * rm); anywhere else (`./cat`, `bin/ls`, `/tmp/x/rm`, `node_modules/.bin/tsc`)
 * it is whatever was put there, which the classifier cannot see: a link to
 * rm named `./cat` runs rm.
 */

/** Folders whose programs are the system's (or a package manager's installed for it). */
const SYSTEM_FOLDERS = new Set([
  ...['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'],
  ...['/opt/homebrew/bin', '/opt/homebrew/sbin', '/opt/local/bin', '/snap/bin'],
  ...['/run/current-system/sw/bin', '/nix/var/nix/profiles/default/bin'],
]);

/**
 * Whether a program word names a file outside the system's program folders
 * (`./cat`, `scripts/ls`, `~/bin/rm`, `C:\tools\ls.exe`). A bare name, found
 * through `PATH`, is not; nor is `/usr/bin/ls`.
 */
export function namesOtherFile(text: string): boolean {
  const slash = Math.max(text.lastIndexOf('/'), text.lastIndexOf('\\'));
  if (slash < 0) return false;
  // `/usr/bin//ls` and `/usr/./bin/ls` are the same folder.
  const folder = text
    .slice(0, slash)
    .replace(/\/\.(?=\/|$)/g, '')
    .replace(/\/+/g, '/')
    .replace(/\/$/, '');
  return !SYSTEM_FOLDERS.has(folder === '' ? '/' : folder);
}

/**
 * The program name a rule reads: basename, lowercase, without a Windows
 * extension; zsh runs `=rm` as the path of rm (its EQUALS expansion), so a
 * leading `=` is dropped.
 */
export function programName(text: string): string {
  const named = /^=[^=/]/.test(text) ? text.slice(1) : text;
  const base = named.slice(Math.max(named.lastIndexOf('/'), named.lastIndexOf('\\')) + 1);
  return base.toLowerCase().replace(/\.(exe|cmd|bat|ps1)$/, '');
}

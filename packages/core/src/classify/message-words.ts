import { namesLongOption } from './flags.js';
import { gitMessageWords } from './git-content-reads.js';

/*
 * Words a program records or sends as text and never opens as a path: a commit's message
 * (`git commit -m "$(cat <<'EOF' ... EOF)"`), a pull request's body (`gh pr create --body
 * "$(cat <<'EOF' ... EOF)"`). The commands inside them are walked all the same; only the word
 * itself is not read as a path it may name.
 */

/** gh's options whose value is text (`--body-file` and `-F`, which read a file, are not among them). */
const GH_TEXT_OPTIONS = ['--body', '--title', '--notes', '--subject'];
const GH_TEXT_SHORT = /^-[btn]$/;

/** The indexes of the text values among gh's words (the first its program). */
function ghTextWords(words: readonly string[]): number[] {
  const found: number[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--') break;
    const long = word.startsWith('--') && !word.includes('-file');
    const names = long && GH_TEXT_OPTIONS.some((name) => namesLongOption(word, name));
    if (names && word.includes('=')) found.push(index);
    else if (names || GH_TEXT_SHORT.test(word)) found.push(++index);
  }
  return found;
}

/** The indexes among a command's words (the first its program) that hold text it records. */
export function messageWords(program: string, words: readonly string[]): number[] {
  if (program === 'git') return gitMessageWords(words);
  if (program === 'gh') return ghTextWords(words);
  return [];
}

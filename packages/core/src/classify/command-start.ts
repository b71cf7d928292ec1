import { recordLoop } from './line-variables.js';
import { recordLoopPrograms } from './program-variables.js';
import type { ShellWord } from './shell-lexer.js';
import type { ActionTag } from './tags.js';
import type { Walk } from './walk.js';
import { wordAfter } from './word-text.js';

const KEYWORDS = new Set(['!', '{', '}', 'do', 'then', 'else', 'elif', 'if', 'while', 'until']);
const CONTROL = new Set(['for', 'select', 'case', 'in']);

/**
 * Where the command in `words` from `at` starts, past its keywords (`if`,
 * `!`, `do`...), a `function` or `coproc` header and a `for`, `select` or
 * `case` header: a loop's list is recorded as the values of its variable,
 * and a subscript payload in it makes the command `unknown`.
 */
export function commandStart(
  words: readonly ShellWord[],
  from: number,
  walk: Walk,
  tags: Set<ActionTag>,
): number {
  let at = from;
  for (;;) {
    while (at < words.length && !words[at]!.dynamic && KEYWORDS.has(words[at]!.text)) at++;
    // `function NAME { BODY; }` and `coproc NAME { BODY; }`: the body follows the name;
    // `coproc CMD` runs CMD in the background.
    const control = at < words.length && !words[at]!.dynamic ? words[at]!.text : '';
    if (control === 'function' || (control === 'coproc' && words[at + 2]?.text === '{')) {
      at = Math.min(at + 2, words.length);
      continue;
    }
    if (control === 'coproc') {
      at++;
      continue;
    }
    if (at >= words.length || !CONTROL.has(words[at]!.text)) return at;
    // `for x do CMD` (no `in`, no `;`): the body starts in the same segment, after `do`;
    // `case x in` ends a command where bash reads it, so words after its `in` are read too.
    const caseIn = control === 'case' ? wordAfter(words, at, 'in') : -1;
    const loop = control === 'for' || control === 'select';
    const body = loop ? wordAfter(words, at, 'do') : caseIn < 0 ? -1 : caseIn + 1;
    const end = body < 0 ? words.length : body;
    // `for x in 'a[$(cmd)]'` stores the payload in x as an assignment would (the body is walked).
    for (let index = at; index < end; index++) if (words[index]!.subscript) tags.add('unknown');
    if (loop && walk.targets) recordLoop(walk.targets, words, at, end);
    if (loop && walk.programs) recordLoopPrograms(walk.programs, words, at, end);
    at = end;
    if (body < 0) return at;
  }
}

import type { ProblemList } from '../issues/problem.js';
import { firstHiddenCharacter, visibleText } from '../text/visible-text.js';

/**
 * Adds a `tool_name_hidden_character` problem when a declared tool name holds
 * a control, bidirectional or zero-width character: every display escapes
 * them, but a name a person reads is declared as it shows. Returns whether
 * the name is clean.
 */
export function checkToolNameText(
  name: string,
  pointer: string,
  problems: Pick<ProblemList, 'add'>,
): boolean {
  const hidden = firstHiddenCharacter(name, { oneLine: true });
  if (hidden === null) return true;
  problems.add(
    'tool_name_hidden_character',
    pointer,
    `the tool name "${visibleText(name)}" holds ${hidden}, a character that changes how the name reads without showing itself; declare the name without it`,
  );
  return false;
}

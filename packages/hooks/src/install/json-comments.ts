import type { HookedAgent } from '@airlock/core';

/**
 * A JSON text with its `//` and `/* … *\/` comments blanked out (strings
 * kept), the way Gemini CLI reads its settings (strip-json-comments).
 * Blanks rather than deletes, so positions in error messages still hold.
 */
export function withoutJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

/**
 * A JSON agent's settings text read as the agent reads it: Gemini CLI strips
 * comments first, Claude Code does not.
 * @throws SyntaxError when the agent could not read it either.
 */
export function parseAsAgent(agent: HookedAgent, text: string): unknown {
  return JSON.parse(agent === 'gemini' ? withoutJsonComments(text) : text);
}

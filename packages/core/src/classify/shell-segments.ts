/** One simple command of a shell line: its words, quotes removed. */
export type ShellSegment = readonly string[];

const OPERATORS = ['&&', '||', ';', '|', '&', '\n', '(', ')'];

/**
 * Splits a shell command line into simple commands at unquoted `&&`, `||`,
 * `;`, `|`, `&`, newlines and parentheses, and each command into words.
 * Single and double quotes group words and are removed; a backslash escapes
 * the next character outside single quotes. It is a tokenizer for
 * classification, not a shell: no expansion, no redirection semantics
 * beyond dropping the redirection target word.
 */
export function splitShellSegments(command: string): ShellSegment[] {
  const segments: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) segments.push(words);
    words = [];
  };
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!;
    if (quote) {
      if (char === quote) quote = null;
      else if (char === '\\' && quote === '"' && index + 1 < command.length)
        word += command[++index];
      else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
      continue;
    }
    if (char === '\\' && index + 1 < command.length) {
      const next = command[++index]!;
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
      continue;
    }
    // `2>&1` and `&> file` are redirections, not the background operator.
    if (char === '&' && (word.endsWith('>') || word.endsWith('<') || command[index + 1] === '>')) {
      word += char;
      inWord = true;
      continue;
    }
    const operator = OPERATORS.find((op) => command.startsWith(op, index));
    if (operator) {
      endSegment();
      index += operator.length - 1;
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\r') {
      endWord();
      continue;
    }
    if (char === '#' && !inWord) {
      while (index + 1 < command.length && command[index + 1] !== '\n') index++;
      continue;
    }
    word += char;
    inWord = true;
  }
  endSegment();
  return segments.map(dropRedirections);
}

const REDIRECTION = /^[0-9]*(>>?|<<?|&>>?|>&|<&)(.*)$/;

/** Removes redirection operators and their targets, keeping the targets' writes visible elsewhere. */
function dropRedirections(words: string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const match = REDIRECTION.exec(words[index]!);
    if (!match) {
      kept.push(words[index]!);
      continue;
    }
    if (match[2] === '') index++;
  }
  return kept;
}

/** The redirection targets that a command line writes to (`> file`, `>> file`). */
export function redirectionTargets(command: string): string[] {
  const targets: string[] = [];
  const pattern = /(?:^|[\s;&|])[0-9]*>>?\s*([^\s;&|<>]+)/g;
  for (const match of command.matchAll(pattern)) {
    const target = match[1]!;
    if (!target.startsWith('&') && target !== '/dev/null') targets.push(target);
  }
  return targets;
}

/** What a sed script does besides printing, read command by command. */
export interface SedEffects {
  /**
   * It drops content (`d`, `D`, `z`, `c` replacing lines, `q`/`Q` dropping
   * the rest of the file): content lost when the edit is in place.
   */
  deletes: boolean;
  /** It runs its pattern space as a shell command (a bare `e`, the `e` flag of `s`): not read. */
  executes: boolean;
  /** The files it writes (`w`, `W`, the `w` flag of `s`); sed empties each as it starts. */
  writes: string[];
  /** The shell commands `e COMMAND` runs (a bare `e` runs the pattern space: `executes`). */
  commands: string[];
}

/** Commands that take no argument (`d` and `D` delete). */
const BARE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F']);
/** Flags of `s` other than `e` and `w`: global, print, case, multi-line, the nth match. */
const S_FLAG = /[gpiImM0-9]/;

/**
 * Reads a sed script as GNU sed parses it: addresses (`12`, `$`, `/re/`,
 * `\cREc`, `first~step`, `a,+n`), `!`, blocks, and each command with its
 * argument, so a letter inside a regular expression, a replacement, a label
 * or an appended text is never taken for a command. Null when the script
 * cannot be read to its end (a command sed does not have, an unterminated
 * `s`): the caller treats it as unread.
 */
export function readSedScript(script: string): SedEffects | null {
  const effects: SedEffects = { deletes: false, executes: false, writes: [], commands: [] };
  let i = 0;
  const at = () => script[i];
  const skip = (chars: string) => {
    while (i < script.length && chars.includes(script[i]!)) i++;
  };
  const restOfLine = () => {
    const start = i;
    while (i < script.length && script[i] !== '\n') i++;
    return script.slice(start, i).trim();
  };
  const until = (stops: string) => {
    while (i < script.length && !stops.includes(script[i]!)) i++;
  };
  /** Past the next unescaped `delimiter`; false when the script ends first. */
  const delimited = (delimiter: string | undefined) => {
    if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
    while (i < script.length) {
      const c = script[i++];
      if (c === '\\') i++;
      else if (c === delimiter) return true;
    }
    return false;
  };
  const number = () => {
    const start = i;
    while (i < script.length && /[0-9]/.test(script[i]!)) i++;
    return i > start;
  };
  /** An optional address; false when one starts and cannot be read. */
  const address = () => {
    const c = at();
    if (c === '$') i++;
    else if (c === '/' || c === '\\') {
      i++;
      if (!delimited(c === '/' ? '/' : script[i++])) return false;
      skip('IM');
    } else if (c !== undefined && /[0-9]/.test(c)) {
      number();
      if (at() === '~') {
        i++;
        if (!number()) return false;
      }
    }
    return true;
  };
  /** Text of `a`, `i`, `c`: to the end of the line, lines ending in `\` going on. */
  const text = () => {
    while (i < script.length && script[i] !== '\n') i += script[i] === '\\' ? 2 : 1;
  };
  while (i < script.length) {
    skip(' \t\n;}');
    if (i >= script.length) break;
    if (at() === '#') {
      restOfLine();
      continue;
    }
    if (!address()) return null;
    skip(' \t');
    if (at() === ',') {
      i++;
      skip(' \t');
      if (at() === '+' || at() === '~') {
        i++;
        if (!number()) return null;
      } else if (!address()) return null;
    }
    skip(' \t!');
    const command = script[i++];
    if (command === '{') continue;
    if (command === undefined) return null;
    if (BARE.has(command)) {
      if (command === 'd' || command === 'D' || command === 'z') effects.deletes = true;
    } else if (command === 's') {
      const delimiter = script[i++];
      if (!delimited(delimiter) || !delimited(delimiter)) return null;
      for (let flag = at(); flag !== undefined; flag = at()) {
        if (flag === 'e') effects.executes = true;
        else if (flag === 'w') {
          i++;
          effects.writes.push(restOfLine());
          break;
        } else if (!S_FLAG.test(flag)) break;
        i++;
      }
    } else if (command === 'y') {
      const delimiter = script[i++];
      if (!delimited(delimiter) || !delimited(delimiter)) return null;
    } else if (command === 'a' || command === 'i' || command === 'c') {
      if (command === 'c') effects.deletes = true;
      text();
    } else if (command === 'w' || command === 'W') effects.writes.push(restOfLine());
    else if (command === 'e') {
      const line = restOfLine();
      if (line === '') effects.executes = true;
      else effects.commands.push(line);
    } else if (command === 'r' || command === 'R') restOfLine();
    else if ('btT:v'.includes(command)) until(';\n');
    else if ('qQlL'.includes(command)) {
      if (command === 'q' || command === 'Q') effects.deletes = true;
      skip(' \t');
      number();
    } else return null;
  }
  return effects;
}

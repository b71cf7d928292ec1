import { readFileSync } from 'node:fs';
import { whereJsonBroke } from '@airlock/core/command-line';
import { UsageError } from '../command-line.js';

/**
 * Reads a JSON file an operator command was given (`--file`). A file that is
 * not JSON is named with where it broke (line and column), never with the
 * text around the break, which V8's message quotes and which may be a secret.
 * @throws UsageError (exit 2) naming `command` and the file when it cannot be
 *   read or is not JSON.
 */
export function readJsonFile(path: string, command: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${command}: cannot read ${path}${code ? ` (${code})` : ''}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${command}: ${path} is not JSON${whereJsonBroke(error, text)}`);
  }
}

import { closeSync, openSync, readSync } from 'node:fs';
import { whereJsonBroke } from '@airlock/core/command-line';
import { UsageError } from '../command-line.js';

/**
 * The most of a `--file` an operator command reads: far past any rule or policy
 * document (a kernel refuses a body past its `--body-limit`, 1 MiB unless set),
 * and a bound on what `--file /dev/zero` or a mistyped multi-gigabyte file costs.
 */
export const JSON_FILE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The file's bytes, at most {@link JSON_FILE_MAX_BYTES}.
 * @throws UsageError when it holds more; errno errors as read.
 */
function readBounded(path: string, command: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, JSON_FILE_MAX_BYTES + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > JSON_FILE_MAX_BYTES) {
        throw new UsageError(
          `${command}: ${path} is larger than ${JSON_FILE_MAX_BYTES} bytes, more than any rule or policy document`,
        );
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a JSON file an operator command was given (`--file`). A file that is
 * not JSON is named with where it broke (line and column), never with the
 * text around the break, which V8's message quotes and which may be a secret.
 * @throws UsageError (exit 2) naming `command` and the file when it cannot be
 *   read, is larger than {@link JSON_FILE_MAX_BYTES} or is not JSON.
 */
export function readJsonFile(path: string, command: string): unknown {
  let text: string;
  try {
    text = readBounded(path, command).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${command}: cannot read ${path}${code ? ` (${code})` : ''}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${command}: ${path} is not JSON${whereJsonBroke(error, text)}`);
  }
}

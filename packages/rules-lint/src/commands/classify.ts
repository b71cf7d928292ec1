import { classifyShellCommand, classifyShellSegments } from '@airlock/core';
import { parseCommand } from '../cli/arguments.js';
import { type CliIo, EXIT, UsageError } from '../cli/cli-io.js';

/**
 * `rules-lint classify 'COMMAND' [--format pretty|json]`: prints each simple
 * command the shell classifier finds (inside `$(...)`, `bash -c`, wrappers
 * and `find -exec` too) with its action tags, then the command's tags. What
 * an `action:<tag>` rule of an action contract matches. Throws UsageError.
 */
export function classifyCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommand(
    'classify',
    args,
    { format: { type: 'string' } },
    { min: 1, max: 1, name: 'COMMAND (quote it as one argument)' },
  );
  const format = values.format ?? 'pretty';
  if (format !== 'pretty' && format !== 'json') {
    throw new UsageError(`classify: --format must be pretty or json, not "${format}"`);
  }
  const command = positionals[0]!;
  const segments = classifyShellSegments(command);
  const tags = classifyShellCommand(command);
  if (format === 'json') {
    io.stdout(`${JSON.stringify({ command, tags, segments }, null, 2)}\n`);
    return EXIT.clean;
  }
  const lines = segments.map((segment) => {
    const via = segment.via.length > 0 ? `  (via ${segment.via.join(' > ')})` : '';
    const note = segment.note ? `  - ${segment.note}` : '';
    return `${segment.tags.join(', ') || '(none)'}\t${segment.command}${via}${note}`;
  });
  io.stdout(`${[...lines, `=> ${tags.join(', ')}`].join('\n')}\n`);
  return EXIT.clean;
}

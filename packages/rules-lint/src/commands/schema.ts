import { parseCommand } from '../cli/arguments.js';
import { type CliIo, EXIT } from '../cli/cli-io.js';
import { ruleFileSchema } from '../schema/rule-file-schema.js';

/** `rules-lint schema`: prints the rule file's JSON Schema. Throws UsageError on arguments. */
export function schemaCommand(args: readonly string[], io: CliIo): number {
  parseCommand('schema', args, {}, { min: 0, max: 0, name: '' });
  io.stdout(`${JSON.stringify(ruleFileSchema(), null, 2)}\n`);
  return EXIT.clean;
}

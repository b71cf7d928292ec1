import { checkCommand } from './check.js';
import { classifyCommand } from './classify.js';
import type { Command } from './command.js';
import { evalCommand } from './eval.js';
import { schemaCommand } from './schema.js';
import { testCommand } from './test.js';

/** Every command, in `--help` order. */
export const COMMANDS: readonly Command[] = [
  {
    name: 'check',
    usage: [
      'check FILE|FOLDER|GLOB|-... [--format pretty|json|sarif|github|junit|checkstyle]',
      '    [--config FILE] [--tools CATALOG.json] [--mode bypass|ask|rules] [--quiet] [--output FILE]',
      '    [--max-warnings N] [--error-on-warnings] [--fix] [--fix-unsafe (implies --fix)]',
      '    [--baseline FILE [--write-baseline]] [--stdin-filename NAME]',
    ],
    run: checkCommand,
  },
  {
    name: 'eval',
    usage: [
      'eval --rules FILE --mode bypass|ask|rules [--origin model|author|kernel] --tool NAME [--input JSON]',
      'eval --rule-set ID --tool NAME [--input JSON] [--rules FILE] [--mode M] [--user|--project|--conversation FILE]',
    ],
    run: evalCommand,
  },
  {
    name: 'test',
    usage: ['test FILE... [--format F] [--allow-empty] [--output FILE] [--stdin-filename NAME]'],
    run: testCommand,
  },
  { name: 'schema', usage: ['schema'], run: schemaCommand },
  { name: 'classify', usage: ["classify 'COMMAND' [--format pretty|json]"], run: classifyCommand },
  {
    name: 'lsp',
    usage: ['lsp [--stdio] [--tools CATALOG.json] [--clientProcessId PID]'],
    // Loaded on demand: the language server library is most of start-up for the other commands.
    run: async (args, io) => (await import('./lsp.js')).lspCommand(args, io),
  },
];

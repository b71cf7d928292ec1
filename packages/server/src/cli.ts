#!/usr/bin/env node
import { serve } from './cli/serve.js';
import { token } from './cli/token.js';

const HELP = `Usage: airlock <command> [options]

Commands:
  serve    Start the approval kernel (airlock serve --help)
  token    Create, revoke or list credentials (airlock token --help)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command === 'token') return token(rest);
  process.stdout.write(HELP);
  return command === undefined || command === '--help' || command === '-h' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`airlock: ${(error as Error).message}\n`);
    process.exit(1);
  },
);

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './samples.js';

/** Commands of a docs page's shell block that are not pnpm's: each is one the reader has. */
const OTHER_COMMANDS = [
  /^\.\/run (start|test|test:faults|test:abuse|bench)\b/,
  /^export [A-Z_]+=/,
  /^curl /,
  /^DATABASE_URL=\S+ (?=pnpm exec airlock serve\b)/,
  /^createdb /,
  /^pg_(dump|restore) /,
  /^(eval "\$\()?bash scripts\/pg-test-cluster\.sh\b/,
];

let airlockCommands: Set<string> | undefined;

/** The commands `airlock --help` lists (`serve`, `executor mcp`, ...), from the built CLI. */
function listedAirlockCommands(): Set<string> {
  if (!airlockCommands) {
    const help = execFileSync(
      process.execPath,
      [join(REPO_ROOT, 'packages', 'server', 'dist', 'cli.js'), '--help'],
      { encoding: 'utf8' },
    );
    const section = help.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? '';
    airlockCommands = new Set(
      [...section.matchAll(/^ {2}([a-z]+(?: [a-z]+)?) {2,}/gm)].map((match) => match[1]!),
    );
  }
  return airlockCommands;
}

/** The scripts of the root package (no filter) or of the workspace package named `@airlock/x`. */
function scriptsOf(filter: string | undefined): Set<string> {
  const dir = filter
    ? readdirSync(join(REPO_ROOT, 'packages'))
        .map((name) => join(REPO_ROOT, 'packages', name))
        .find((path) => {
          const manifest = join(path, 'package.json');
          return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === filter;
        })
    : REPO_ROOT;
  if (!dir) return new Set();
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return new Set(Object.keys(manifest.scripts ?? {}));
}

/**
 * Whether a shell line of a docs page runs something this repository
 * provides: an `airlock` command its `--help` lists, a bin the install links,
 * a script of the package it names, or one of the other commands above.
 */
export function isKnownCommand(line: string): boolean {
  const command = line.replace(OTHER_COMMANDS[3]!, '');
  const airlock = /^pnpm exec airlock ([a-z]+)(?: ([a-z]+))?/.exec(command);
  if (airlock) {
    const listed = listedAirlockCommands();
    return listed.has(airlock[1]!) || listed.has(`${airlock[1]} ${airlock[2]}`);
  }
  const bin = /^pnpm exec ([\w-]+)/.exec(command);
  if (bin) return existsSync(join(REPO_ROOT, 'node_modules', '.bin', bin[1]!));
  const script = /^pnpm (?:--filter (\S+) )?([\w:-]+)/.exec(command);
  if (script) return scriptsOf(script[1]).has(script[2]!);
  return OTHER_COMMANDS.some((pattern) => pattern.test(command));
}

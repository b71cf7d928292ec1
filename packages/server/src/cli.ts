#!/usr/bin/env node
import { backup, restore } from './cli/backup.js';
import { hooks } from './cli/hooks.js';
import { mcp } from './cli/mcp.js';
import { approvals } from './cli/operator/approvals.js';
import { apps } from './cli/operator/apps.js';
import { audit } from './cli/operator/audit.js';
import { describeFailure } from './cli/operator/connection.js';
import { decisions } from './cli/operator/decisions.js';
import { notifications } from './cli/operator/notifications.js';
import { overlays } from './cli/operator/overlays.js';
import { retention } from './cli/operator/retention.js';
import { runs } from './cli/operator/runs.js';
import { tokens } from './cli/operator/tokens.js';
import { serve } from './cli/serve.js';
import { token } from './cli/token.js';

const HELP = `Usage: airlock <command> [options]

Commands:
  serve      Start the approval kernel (airlock serve --help)
  decisions  List, approve, deny and answer decisions on a running kernel
  approvals  Show and set the workspace's approval policy (quorum, approvers, self-approval)
  runs       List, show and stop runs on a running kernel
  overlays   Read, replace, trust and load permission overlays on a running kernel
  tokens     Create, list and revoke credentials through a running kernel
  apps       Create, list and remove agent applications through a running kernel
  notifications  List the notification outbox and redeliver a notice (airlock notifications --help)
  audit      Export the decisions of a running kernel as JSON lines (airlock audit --help)
  retention  Read or set how long a running kernel keeps events, ended runs and audit records
  token      Create, revoke or list credentials straight in a local store
  backup     Copy the SQLite store to a file while the kernel serves (airlock backup --help)
  restore    Put a backup in place, the kernel stopped (airlock restore --help)
  executor mcp  Serve MCP servers' tools as an executor (needs @airlock/mcp)
  gateway mcp   Serve MCP clients; every call crosses the approval stage (needs @airlock/mcp)
  hooks      Put Airlock in front of Claude Code, Codex, Gemini CLI: install, uninstall, doctor (needs @airlock/hooks)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command === 'token') return token(rest);
  if (command === 'tokens') return tokens(rest);
  if (command === 'decisions') return decisions(rest);
  if (command === 'approvals') return approvals(rest);
  if (command === 'runs') return runs(rest);
  if (command === 'overlays') return overlays(rest);
  if (command === 'apps') return apps(rest);
  if (command === 'audit') return audit(rest);
  if (command === 'retention') return retention(rest);
  if (command === 'notifications') return notifications(rest);
  if (command === 'hooks') return hooks(rest);
  if (command === 'backup') return backup(rest);
  if (command === 'restore') return restore(rest);
  if ((command === 'executor' || command === 'gateway') && rest[0] === 'mcp') {
    return mcp(command, rest.slice(1));
  }
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(HELP);
    return 0;
  }
  process.stderr.write(`airlock: unknown command ${command}\n\n${HELP}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const { message, exitCode } = describeFailure(error);
    // Command errors already name themselves ("airlock runs list: ..."): one prefix, not two.
    process.stderr.write(`${message.startsWith('airlock ') ? message : `airlock: ${message}`}\n`);
    process.exit(exitCode);
  },
);

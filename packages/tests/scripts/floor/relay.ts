/*
 * The floor of a gateway, for bench-mcp-floor.ts: reads JSON-RPC lines from its client on stdin,
 * asks the record server (RECORD_URL, one POST on a kept-alive connection) about each tools/call
 * when RECORD_URL is set, forwards the line to the MCP server it started (its arguments), and
 * writes the server's answer lines back on stdout. No validation, no SDK: the hops alone.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { recordAsker } from './record.js';

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: relay.ts COMMAND [ARGS...]');
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
const ask = process.env.RECORD_URL ? recordAsker(process.env.RECORD_URL) : null;

createInterface({ input: server.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
});
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as {
    id?: unknown;
    method?: string;
    params?: { name?: string; arguments?: unknown };
  };
  if (!ask || message.method !== 'tools/call') {
    server.stdin.write(`${line}\n`);
    return;
  }
  ask({ id: message.id, tool: message.params?.name, input: message.params?.arguments }).then(
    () => server.stdin.write(`${line}\n`),
    (error: unknown) => {
      process.stderr.write(`relay: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
process.stdin.on('end', () => {
  server.stdin.end();
  process.exit(0);
});

/*
 * The floor of a gateway, for bench-mcp-floor.ts: reads JSON-RPC lines from its client on stdin,
 * asks the record server (RECORD_URL, one POST on a kept-alive connection) about each tools/call
 * when RECORD_URL is set, forwards the line to the MCP server it started (its arguments), and
 * writes the server's answer lines back on stdout. No validation, no SDK: the hops alone.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: relay.ts COMMAND [ARGS...]');
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
const recordUrl = process.env.RECORD_URL ? new URL(process.env.RECORD_URL) : null;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function ask(url: URL, body: string): Promise<{ verdict: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

createInterface({ input: server.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
});
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as {
    id?: unknown;
    method?: string;
    params?: { name?: string; arguments?: unknown };
  };
  if (!recordUrl || message.method !== 'tools/call') {
    server.stdin.write(`${line}\n`);
    return;
  }
  const body = JSON.stringify({
    id: message.id,
    tool: message.params?.name,
    input: message.params?.arguments,
  });
  ask(recordUrl, body).then(
    (answer) => {
      if (answer.verdict !== 'allow') throw new Error('the record server refused');
      server.stdin.write(`${line}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`relay: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
process.stdin.on('end', () => {
  server.stdin.end();
  agent.destroy();
});

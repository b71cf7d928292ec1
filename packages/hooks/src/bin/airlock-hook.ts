#!/usr/bin/env node
/**
 * The hook entry an agent runs for each hook event: `airlock-hook AGENT
 * [--config FILE] [--wait-ms N] [--defer] [--no-ask]`, the payload on stdin,
 * the agent's answer on stdout. It imports nothing but node builtins and this
 * package's mapping, so it starts fast.
 */
import { protocolOf } from '../agents/registry.js';
import { runHook } from '../client/run-hook.js';

/**
 * The payload as text; `unreadable` when its bytes are not UTF-8, which a
 * lossy decoding would turn into another call than the agent's.
 */
async function readStdin(): Promise<{ text: string; unreadable?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { text: bytes.toString('utf8'), unreadable: 'the payload is not UTF-8' };
  }
}

function flag(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const protocol = protocolOf(argv[0] ?? '');
  if (!protocol) {
    process.stderr.write(
      'usage: airlock-hook claude-code|codex|gemini [--config FILE] [--wait-ms N] [--defer] [--no-ask]\n',
    );
    return 2;
  }
  const stdin = await readStdin();
  const output = await runHook({
    protocol,
    input: stdin.text,
    unreadable: stdin.unreadable,
    configPath: flag(argv, '--config'),
    waitMs: flag(argv, '--wait-ms'),
    defer: argv.includes('--defer'),
    nativeAsk: !argv.includes('--no-ask'),
  });
  if (output.stdout) process.stdout.write(output.stdout);
  if (output.stderr) process.stderr.write(output.stderr);
  return output.exitCode;
}

/**
 * Ends the process as soon as the answer is written: the agent waits on this
 * process's exit, and an idle keep-alive connection to the kernel would hold
 * it open for a fifth of a second more on every hook event.
 */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exitAfterFlush, (error: unknown) => {
  process.stderr.write(`airlock-hook: ${String(error)}\n`);
  exitAfterFlush(2);
});

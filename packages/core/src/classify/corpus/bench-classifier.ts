/**
 * Benchmark of the shell classifier and the action-contract evaluator:
 * commands per second over the corpus (with per-command mean latency), a
 * contract decision per call, and the time for a few hostile 60 KiB inputs.
 * Prints figures; asserts nothing. Run: pnpm --filter @airlock/core bench:classify
 */

import { evaluateActionContract } from '../../contracts/evaluate-contract.js';
import { validateActionContract } from '../../contracts/validate-contract.js';
import { classifyShellCommand } from '../action-tags.js';
import { readCorpus } from './read-corpus.js';

const MIN_SECONDS = 1;

/** Items per wall-clock second, and per second of this process's CPU time (steadier on a busy machine). */
function perSecond(items: readonly string[], run: (item: string) => unknown): [number, number] {
  let sink = 0;
  let rounds = 0;
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < MIN_SECONDS) {
    for (const item of items) if (run(item)) sink++;
    rounds++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  const cpu = process.cpuUsage(cpuStart);
  if (sink < 0) console.log(sink);
  const done = rounds * items.length;
  return [done / elapsed, done / ((cpu.user + cpu.system) / 1e6)];
}

const rate = ([wall, cpu]: [number, number], unit: string) =>
  `${Math.round(wall).toLocaleString('en-US')} ${unit}/s (${(1e6 / wall).toFixed(1)} us mean; ${Math.round(cpu).toLocaleString('en-US')} per CPU second)`;

function once(text: string): number {
  const start = process.hrtime.bigint();
  classifyShellCommand(text);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const commands = readCorpus().map((entry) => entry.command);
const contract = validateActionContract({
  contract_version: 1,
  authorization: {
    forbidden: ['action:destructive'],
    requires_user: ['action:install_local', 'tool:deploy'],
    allowed: ['command-prefix:npm test', 'action:read'],
  },
  must_and_must_not: { must_not: ['command-prefix:git push'] },
  constraints: ['Do not install anything globally.'],
});
if (!contract.ok) throw new Error('bench contract does not validate');

// Warm up the JIT on both paths before measuring.
perSecond(commands, (command) =>
  evaluateActionContract(contract.value, { toolName: 'bash', toolInput: { command } }),
);
const classify = perSecond(commands, (command) => classifyShellCommand(command).length);
console.log(
  `classifyShellCommand: ${commands.length} corpus commands, ${rate(classify, 'commands')}`,
);
const decide = perSecond(commands, (command) =>
  evaluateActionContract(contract.value, { toolName: 'bash', toolInput: { command } }),
);
console.log(`evaluateActionContract (5 rules + constraints): ${rate(decide, 'calls')}`);
const hostile: Record<string, string> = {
  '20k nested $(': `${'$('.repeat(20000)}ls${')'.repeat(20000)}`,
  '20k sudo wrappers': `${'sudo '.repeat(12000)}rm -rf x`,
  '30k nested parentheses': `${'('.repeat(30000)}ls${')'.repeat(30000)}`,
  '20k words': 'ls '.repeat(20000),
  '5k here-documents': `${'cat <<EOF '.repeat(5000)}\n`,
  '8k substitutions in a here-document body': `cat <<EOF\n${'$(ls) '.repeat(8000)}\nEOF`,
};
for (const [name, text] of Object.entries(hostile)) {
  console.log(
    `hostile ${name} (${(text.length / 1024).toFixed(0)} KiB): ${once(text).toFixed(1)} ms`,
  );
}

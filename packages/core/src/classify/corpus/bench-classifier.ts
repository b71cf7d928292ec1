/**
 * Benchmark of the shell classifier and the action-contract evaluator:
 * commands per second over the corpus (with per-command mean latency), a
 * contract decision per call, and the time for hostile inputs just under the
 * classifier's length limit (8,192 characters), and one past it.
 * Prints figures; asserts nothing. Run: pnpm --filter @airlock/core bench:classify
 */

import { evaluateActionContract } from '../../contracts/evaluate-contract.js';
import { validateActionContract } from '../../contracts/validate-contract.js';
import { classifyShellCommand, MAX_CLASSIFIED_COMMAND_LENGTH } from '../action-tags.js';
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
/** The longest text of `open` repeated n times, `middle`, `close` repeated n times that the classifier still reads. */
function filled(open: string, middle: string, close = ''): string {
  const n = Math.floor(
    (MAX_CLASSIFIED_COMMAND_LENGTH - middle.length) / (open.length + close.length),
  );
  return `${open.repeat(n)}${middle}${close.repeat(n)}`;
}
// Each just under the classifier's length limit, past which it reads nothing (unknown, at once).
/** `bash -c "$(cat <<E ... E)"` nested as deep as the limit allows, an unquoted delimiter at each level. */
function nestedHeredocScripts(): string {
  let text = 'rm -rf x';
  for (let level = 0; ; level++) {
    const next = `bash -c "$(cat <<E${level}\n${text}\nE${level}\n)"`;
    if (next.length > MAX_CLASSIFIED_COMMAND_LENGTH) return text;
    text = next;
  }
}
const hostile: Record<string, string> = {
  'nested $(': filled('$(', 'ls', ')'),
  'sudo wrappers': filled('sudo ', 'rm -rf x'),
  'unknown sudo options': filled('sudo --zz ', 'ls'),
  'nested parentheses': filled('(', 'ls', ')'),
  'unclosed parentheses': filled('(', 'ls'),
  'stray closing parentheses': filled('\t)=', ''),
  'for without in': filled('for a do ', 'ls'),
  'here-document scripts nested in bash -c': nestedHeredocScripts(),
  'ssh chain': filled('ssh h ', 'ls'),
  'ssh chain with options': filled('ssh -p 22 h ', 'ls'),
  'ssh chain with options read apart': filled('ssh -o A=b h ', 'ls'),
  'watch chain': filled('watch ', 'ls'),
  'unclosed =~ regexes around $(': filled('[[ x =~ ( $( ', 'ls'),
  'parallel chain': filled('parallel -j 2 ', 'ls'),
  words: filled('ls ', ''),
  'unquoted expansions': filled('find . -name $N ', ''),
  'here-documents': filled('cat <<EOF ', '\n'),
  'substitutions in a here-document body': `cat <<EOF\n${filled('$(ls) ', '').slice(0, MAX_CLASSIFIED_COMMAND_LENGTH - 20)}\nEOF`,
  'git global options': filled('git -c a.b=c ', 'status'),
  segments: filled('ls;', ''),
  'glob program names': filled('r*;', ''),
  'glob program names, one word each': filled('r? ', ''),
  'a run of [ as a program name': filled('[', ''),
  'stars and marks in program names': filled('*?*?*?*?*?*?*?*?*?*?*?*?*x;', ''),
  'blank lines given to a database client': `mysql -e '${'\n'.repeat(MAX_CLASSIFIED_COMMAND_LENGTH - 12)}'`,
  'find -exec': `find . ${filled('-exec ls ; ', '').slice(0, MAX_CLASSIFIED_COMMAND_LENGTH - 7)}`,
  // Each level is read as a `$(...)` and again as the `bash -c` word holding it.
  'nested bash -c "$(': filled('bash -c $(bash -c "', ''),
  'bash 5.3 ${ command lists in sh -c': filled('sh -c "${ ', ''),
  'sh -c lines with &> and [[ read twice': filled("sh -c '[[ x ]] &>/dev/null ", ''),
  'NUL bytes between commands': filled('ls\0;', ''),
  'past the limit': `${'ls '.repeat(MAX_CLASSIFIED_COMMAND_LENGTH)}`,
};
// The best of five: the first run of a shape also pays for compiling its code paths, and a
// collection of the garbage earlier shapes left can land in any one run.
const best = (text: string) => Math.min(...Array.from({ length: 5 }, () => once(text)));
// The baseline: plain words of the same length, so a shape's ratio says how much more it costs
// than text the classifier reads in one pass (a busy machine slows both alike).
const baseline = best(hostile.words!);
for (const [name, text] of Object.entries(hostile)) {
  const time = best(text);
  console.log(
    `hostile ${name} (${text.length.toLocaleString('en-US')} characters): ${time.toFixed(2)} ms, ${(time / baseline).toFixed(1)}x plain words`,
  );
}

// A call carrying many commands through a manifest's pointer (`/list/*`): the call is read
// once, whatever the count (its tags and a refusing command-prefix rule share one bound).
for (const count of [1_000, 100_000]) {
  const toolInput = { list: Array.from({ length: count }, (_, index) => `ls ${index}`) };
  const call = { toolName: 'run', toolInput, commandPointers: ['/list/*'] };
  const start = process.hrtime.bigint();
  evaluateActionContract(contract.value, call);
  const time = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`hostile call of ${count.toLocaleString('en-US')} commands: ${time.toFixed(1)} ms`);
}

/**
 * A first look at the approval stage: declares a rule list, evaluates a few
 * calls under each mode and prints each decision with the rules that matched.
 */
import { decide, explainMatches, type ToolCall, validateRuleList } from '../index.js';

const rules = [
  {
    tool: 'bash|start_process',
    path: 'command',
    match: '*git push*--force*',
    verdict: 'deny',
    reason: 'force push rewrites history others may hold; a person can run it',
  },
  { tool: 'write|edit', path: 'path', match: '*.env', verdict: 'deny' },
  { tool: 'memory_*|ask|read', verdict: 'allow' },
  { tool: 'bash|start_process', path: 'command', match: 'ls -la', verdict: 'allow' },
  { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'ask' },
  { tool: 'bash', verdict: 'ask', origin: 'author' },
];

const calls: (Omit<ToolCall, 'mode'> & { note: string })[] = [
  { note: 'a listing', origin: 'model', toolName: 'bash', toolInput: { command: 'ls -la' } },
  {
    note: 'a fragment behind cd',
    origin: 'model',
    toolName: 'bash',
    toolInput: { command: 'cd repo && git push origin main --force' },
  },
  {
    note: 'a destructive command',
    origin: 'model',
    toolName: 'bash__0123456789ab',
    toolInput: { command: 'cd x && rm -rf build' },
  },
  {
    note: 'a secrets file',
    origin: 'model',
    toolName: 'edit',
    toolInput: { path: 'config/.env', text: 'KEY=1' },
  },
  {
    note: 'an ordinary edit',
    origin: 'model',
    toolName: 'edit',
    toolInput: { path: 'src/app.ts', text: '' },
  },
  { note: 'a memory read', origin: 'model', toolName: 'memory_get', toolInput: { key: 'plan' } },
  {
    note: 'author bash, opted in',
    origin: 'author',
    toolName: 'bash',
    toolInput: { command: 'make' },
  },
  { note: 'a typo in a tool name', origin: 'model', toolName: 'bsh', toolInput: { command: 'ls' } },
];

const policy = validateRuleList(rules);
if (!policy.ok) {
  for (const problem of policy.problems)
    console.error(`${problem.pointer}: ${problem.message} (${problem.code})`);
  process.exit(1);
}

console.log('Airlock approval stage demo\n');
console.log('Rules:');
rules.forEach((rule, index) => {
  console.log(`  [${index}] ${JSON.stringify(rule)}`);
});

for (const mode of ['bypass', 'ask', 'rules'] as const) {
  console.log(`\nMode: ${mode}`);
  for (const { note, ...call } of calls) {
    const decision = decide(policy.value, { ...call, mode });
    const why = explainMatches(policy.value, { ...call, mode })
      .map(
        (match) =>
          `[${match.index}] ${match.verdict}${match.text === null ? '' : ` on ${JSON.stringify(match.text)}`}`,
      )
      .join(', ');
    const outcome =
      decision.outcome === 'granted'
        ? `granted by ${decision.granted_by}`
        : decision.outcome === 'denied'
          ? `denied: ${decision.error?.detail}`
          : 'parked for a person';
    console.log(
      `  ${call.origin.padEnd(6)} ${decision.tool_name.padEnd(10)} ${note.padEnd(24)} -> ${outcome}`,
    );
    console.log(`  ${''.padEnd(42)}matched: ${why || 'none'}`);
  }
}

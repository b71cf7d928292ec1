import { RETRY_ROUTES } from './retry-routes.js';
import { RUN_PHASE_MOVES, RUN_STATES } from './run-machine.js';
import { TASK_VERB_NAMES, verbRule } from './task-machine.js';
import { type TaskState, TERMINAL_STATES } from './task-states.js';

/** Where docs/task-states.md is generated from, named in its header. */
const GENERATOR = 'packages/server/scripts/gen-task-states.ts';

function code(values: readonly string[]): string {
  return values.map((value) => `\`${value}\``).join(', ');
}

/** The edges of the task diagram: one per (from, to) pair, labelled with every verb that takes it. */
function taskEdges(): string[] {
  const labels = new Map<string, string[]>();
  for (const verb of TASK_VERB_NAMES) {
    const rule = verbRule(verb);
    for (const from of rule.from) {
      const targets: readonly TaskState[] = rule.to === 'same' ? [from] : rule.to;
      for (const to of targets) {
        const edge = `${from} --> ${to}`;
        labels.set(edge, [...(labels.get(edge) ?? []), verb]);
      }
    }
  }
  return [...labels].map(([edge, verbs]) => `  ${edge}: ${verbs.join(', ')}`);
}

function verbTable(): string[] {
  const rows = TASK_VERB_NAMES.map((verb) => {
    const rule = verbRule(verb);
    const to = rule.to === 'same' ? '(unchanged)' : code(rule.to);
    const kinds = rule.kinds ? code(rule.kinds) : 'any';
    const emits = rule.emits.length > 0 ? code(rule.emits) : '(none)';
    const run = rule.run === 'running' ? 'running' : 'any';
    return `| \`${verb}\` | ${rule.actor} | ${code(rule.from)} | ${to} | ${emits} | ${run} | ${kinds} | \`${rule.refusal}\` | ${rule.summary} |`;
  });
  return [
    '| verb | by | from | to | emits | run must be | kinds | refused with (409) | what it does |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ];
}

function retryTable(): string[] {
  const rows = RETRY_ROUTES.map((entry) => {
    const kinds = entry.kinds ? code(entry.kinds) : 'any';
    const codes = entry.codes ? code(entry.codes) : 'any';
    const to = entry.to.length > 0 ? code(entry.to) : '(unchanged)';
    return `| \`${entry.route}\` | ${kinds} | ${codes} | ${to} | ${entry.summary} |`;
  });
  return [
    '## Retries',
    '',
    "A person's `retry` of a row that holds its run goes by the row's kind and failure code: the",
    'first line that matches decides. Every state a retry leaves a row in is one some verb moves',
    'that kind of row on from, so a retry never strands its run. A tool call the rules or a person',
    'refused (`approval_denied`) does not hold its run: the model reads the refusal, and its retry',
    'answers `task_not_waiting`.',
    '',
    '| route | kinds | failure codes | to | what it does |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ];
}

function runDiagram(): string[] {
  const edges = Object.entries(RUN_PHASE_MOVES).flatMap(([reason, move]) =>
    move.from.map((from) => `  ${from} --> ${move.to}: ${reason}`),
  );
  const ends = RUN_STATES.filter((state) => state !== 'running');
  return [
    '```mermaid',
    'stateDiagram-v2',
    '  [*] --> model: run created',
    ...edges,
    ...['model', 'tools', 'hook'].map((phase) => `  ${phase} --> done: ended`),
    '  done --> [*]',
    '```',
    '',
    `A run is \`running\` in every phase but \`done\`; it ends as one of ${code(ends)}.`,
    'Any end but `completed` first cancels its outstanding rows. Only `run-machine.ts` writes',
    "a run's state and phase.",
    '',
    '| reason | from | to | when |',
    '| --- | --- | --- | --- |',
    ...Object.entries(RUN_PHASE_MOVES).map(
      ([reason, move]) =>
        `| \`${reason}\` | ${code(move.from)} | \`${move.to}\` | ${move.summary} |`,
    ),
  ];
}

/** Renders docs/task-states.md from the state machine's tables (a test fails when the page drifts). */
export function renderStateDiagram(): string {
  return [
    '# Task and run states',
    '',
    `<!-- Generated from packages/server/src/kernel/machines/task-machine.ts and run-machine.ts by ${GENERATOR}; do not edit. -->`,
    '',
    "Every move of a task row is one verb of the kernel's state machine. A verb moves a row only",
    'from its listed states, with one conditional update, so of two racing verbs exactly one wins;',
    'the loser answers 409 and changes nothing. A verb whose run must be `running` answers 409',
    '`run_not_running` on a run that ended. A run settles only when every row of every origin has',
    'settled and nothing holds (or a person abandons or stops it).',
    '',
    '## Task states',
    '',
    '```mermaid',
    'stateDiagram-v2',
    '  [*] --> ready: plant',
    ...taskEdges(),
    ...TERMINAL_STATES.map((state) => `  ${state} --> [*]`),
    '```',
    '',
    `Terminal states: ${code(TERMINAL_STATES)}. Only a person's \`retry\` (of a row that holds its run)`,
    "and the kernel's `fail_hook`, `correct_outcome` and `late_report` leave one.",
    '',
    ...verbTable(),
    '',
    "A person's `approve`, `deny` or `resolve` of a row whose deadline has passed is refused with",
    '`task_not_waiting` ("its decision expired") on every surface, even in the moments before the',
    "clocks' sweep moves it to `timed_out`.",
    '',
    ...retryTable(),
    '',
    '## Run phases',
    '',
    ...runDiagram(),
    '',
  ].join('\n');
}

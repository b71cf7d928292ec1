import { RUN_STATES, type RunState } from '@airlock/core';
import {
  CONNECTION_HELP,
  callKernel,
  connectionFrom,
  OperatorError,
  parseOperatorArgs,
  print,
  workspacePath,
} from './connection.js';

/** `airlock runs --help` */
export const RUNS_HELP = `Usage:
  airlock runs list [--state running|completed|canceled|failed]
  airlock runs show <run-id>
  airlock runs stop <run-id>

Lists, shows and stops the workspace's runs. Needs a member credential
(an agent credential may list and show).

${CONNECTION_HELP}`;

interface RunRow {
  id: string;
  state: string;
  approval_mode: string;
  round: number;
  attention: { reason: string; blocked_task_keys: string[] }[];
  final_answer: string | null;
  created_at: number;
}

interface TaskRow {
  key: string;
  state: string;
  origin: string;
  tool_name: string;
  error?: { code: string; detail: string } | null;
}

function isRunState(value: string): value is RunState {
  return (RUN_STATES as readonly string[]).includes(value);
}

function runLine(run: RunRow): string {
  const attention = run.attention
    .map((a) => `${a.reason}: ${a.blocked_task_keys.join(',')}`)
    .join('; ');
  return `${run.id}  ${run.state.padEnd(9)} ${run.approval_mode.padEnd(6)} round ${run.round}${attention ? `  (${attention})` : ''}`;
}

/** Runs `airlock runs ...`; returns the exit code. */
export async function runs(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, { state: { type: 'string' } });
  const [verb, runId] = positionals;
  if (values.help || !verb) {
    process.stdout.write(RUNS_HELP);
    return values.help ? 0 : 2;
  }
  if (verb === 'list' && typeof values.state === 'string' && !isRunState(values.state)) {
    throw new OperatorError(
      `airlock runs list: --state must be one of ${RUN_STATES.join(', ')}, not ${values.state}`,
      2,
    );
  }
  const connection = connectionFrom(values);
  const runPath = () => {
    if (!runId) throw new OperatorError(`airlock runs ${verb}: give <run-id>`, 2);
    return `${workspacePath(connection)}/runs/${encodeURIComponent(runId)}`;
  };
  switch (verb) {
    case 'list': {
      const query =
        typeof values.state === 'string' ? `?state=${encodeURIComponent(values.state)}` : '';
      const body = await callKernel<{ runs: RunRow[] }>(
        connection,
        'GET',
        `${workspacePath(connection)}/runs${query}`,
      );
      print(connection, body, () =>
        body.runs.length === 0 ? ['no runs'] : body.runs.map(runLine),
      );
      return 0;
    }
    case 'show': {
      const run = await callKernel<RunRow>(connection, 'GET', runPath());
      const tasks = await callKernel<{ tasks: TaskRow[] }>(connection, 'GET', `${runPath()}/tasks`);
      print(connection, { run, tasks: tasks.tasks }, () => [
        runLine(run),
        ...(run.final_answer === null ? [] : [`  answer: ${run.final_answer}`]),
        ...tasks.tasks.map(
          (task) =>
            `  ${task.key.padEnd(5)} ${task.state.padEnd(15)} ${task.origin.padEnd(6)} ${task.tool_name}${task.error ? ` (${task.error.code}: ${task.error.detail})` : ''}`,
        ),
      ]);
      return 0;
    }
    case 'stop': {
      const body = await callKernel<RunRow>(connection, 'POST', `${runPath()}/stop`, {});
      print(connection, body, () => [`stopped: ${runLine(body)}`]);
      return 0;
    }
    default:
      throw new OperatorError(`airlock runs: unknown verb "${verb}" (list, show, stop)`, 2);
  }
}

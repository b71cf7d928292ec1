import type { RunView } from '@airlock/core';
import { unknownVerbLine } from '@airlock/core/command-line';
import {
  CONNECTION_HELP,
  connectionFrom,
  parseOperatorArgs,
  print,
  UsageError,
} from './connection.js';
import { parseChoice } from './filter-values.js';
import { nextPageLines, parsePaging, readPages } from './paging.js';

/** `airlock runs --help` */
export const RUNS_HELP = `Usage:
  airlock runs list [--state running|completed|canceled|failed] [--limit <n>] [--cursor <c> | --all]
  airlock runs show <run-id>
  airlock runs stop <run-id>

Lists, shows and stops the workspace's runs. list shows the newest 100
unless --limit says (1 to 1000); when more runs exist it prints the command
that reads the next page (--cursor); --all reads every page. stop of a run
that already ended changes nothing and says so (exit 0). Needs a member
credential (an agent credential acts on its own application's runs only).

${CONNECTION_HELP}`;

function runLine(run: RunView): string {
  const attention = run.attention
    .map((a) => `${a.reason}: ${a.blocked_task_keys.join(',')}`)
    .join('; ');
  return `${run.id}  ${run.state.padEnd(9)} ${run.approval_mode.padEnd(6)} round ${run.round}${attention ? `  (${attention})` : ''}`;
}

/** Runs `airlock runs ...`; returns the exit code. */
export async function runs(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'runs', {
    list: {
      flags: {
        state: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        all: { type: 'boolean' },
      },
    },
    show: { operands: ['<run-id>'] },
    stop: { operands: ['<run-id>'] },
  });
  const [verb, runId] = positionals;
  if (values.help || !verb) {
    process.stdout.write(RUNS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  const run = () => {
    if (!runId) throw new UsageError(`airlock runs ${verb}: give <run-id>`);
    return { workspace_id: connection.workspace, run_id: runId };
  };
  switch (verb) {
    case 'list': {
      const state = parseChoice(values.state, {
        command: 'airlock runs list',
        flag: '--state',
        // The states come with the contracts' schemas: loaded only when a filter names one.
        choices: values.state === undefined ? [] : (await import('@airlock/core')).RUN_STATES,
      });
      const { limit, cursor, all } = parsePaging(values, 'airlock runs list');
      const page = (after: string | undefined) =>
        connection.call('runs.list', {
          workspace_id: connection.workspace,
          ...(limit ? { limit } : {}),
          ...(state ? { state } : {}),
          ...(after ? { cursor: after } : {}),
        });
      const body = await readPages(page, {
        command: 'airlock runs list',
        cursor,
        all,
        rowsOf: (one) => one.runs,
      });
      print(connection, body, () => [
        ...(body.runs.length === 0
          ? [cursor === undefined ? 'no runs' : 'no more runs after this cursor']
          : body.runs.map(runLine)),
        ...nextPageLines({
          again: [
            'airlock runs list',
            ...connection.repeatFlags,
            state && `--state ${state}`,
            limit && `--limit ${limit}`,
          ],
          what: 'runs',
          shown: body.runs.length,
          nextCursor: body.next_cursor,
        }),
      ]);
      return 0;
    }
    case 'show': {
      const shown = await connection.call('runs.get', run());
      // Every row: the kernel ends a page of them at about 8 MiB of text, limit or none.
      const tasks = await readPages(
        (after) => connection.call('tasks.list', { ...run(), ...(after ? { cursor: after } : {}) }),
        { command: 'airlock runs show', cursor: undefined, all: true, rowsOf: (one) => one.tasks },
      );
      print(connection, { run: shown, tasks: tasks.tasks }, () => [
        runLine(shown),
        ...(shown.final_answer === null ? [] : [`  answer: ${shown.final_answer}`]),
        // Why a run failed (refused_rounds_exceeded, a provider's refusal), as --json shows it.
        ...(shown.error ? [`  error: ${shown.error.code}: ${shown.error.detail}`] : []),
        ...tasks.tasks.map(
          (task) =>
            `  ${task.key.padEnd(5)} ${task.state.padEnd(15)} ${task.origin.padEnd(6)} ${task.tool_name}${task.error ? ` (${task.error.code}: ${task.error.detail})` : ''}`,
        ),
      ]);
      return 0;
    }
    case 'stop': {
      // The kernel answers a run that had already ended as it is: the state before tells which.
      const before = await connection.call('runs.get', run());
      const body = await connection.call('runs.stop', run());
      const stoppedNow = before.state === 'running' && body.state === 'canceled';
      print(connection, body, () => [
        `${stoppedNow ? 'stopped' : 'already ended, nothing to stop'}: ${runLine(body)}`,
      ]);
      return 0;
    }
    default:
      throw new UsageError(unknownVerbLine('runs', verb, ['list', 'show', 'stop']));
  }
}

import type { JsonValue, TaskView } from '@airlock/core';
import { unknownVerbLine } from '@airlock/core/command-line';
import { readSecretArgument } from '../secret-input.js';
import {
  CONNECTION_HELP,
  type Connection,
  connectionFrom,
  parseOperatorArgs,
  print,
  UsageError,
} from './connection.js';
import { parseIdFilter } from './filter-values.js';
import { nextPageLines, parsePaging, readPages } from './paging.js';

/** `airlock decisions --help` */
export const DECISIONS_HELP = `Usage:
  airlock decisions list [--limit <n>] [--cursor <c> | --all]
  airlock decisions show <run-id> <task-key>
  airlock decisions approve <run-id> <task-key> [--version <v>] [--input <json>]
  airlock decisions deny <run-id> <task-key> [--version <v>] [--reason <text>]
  airlock decisions answer <run-id> <task-key> (--content <text> | --decline) [--resolution-token -]

Lists and ends the decisions resting on a person: parked tool calls
(approve, deny) and questions (answer). A call the workspace's approval
policy wants several approvals for shows "1 of 2 approvals" and runs once
enough distinct members approved. "approve --input" approves an edited call:
the kernel evaluates the new input again through every rule and layer, and
refuses it (edit_refused) if a rule would. Needs a member credential.
A question a client appended answers only with its resolution token:
--resolution-token - reads it from standard input (a token on the command
line still works, with a warning: any user can read it in \`ps\`).

list and show print each row's version. Pass it as --version to approve or
deny exactly what you read: if the row changed since (another member edited
its input, it expired and was parked again), the kernel refuses with
version_mismatch and nothing changes; show it again and decide on what it
holds now. Without --version the decision applies to whatever the row holds.

list shows a page, oldest first: 100 rows unless --limit says (1 to 1000).
When more wait, it says how many in all and prints the command that reads
the next page (--cursor); --all reads every page.

${CONNECTION_HELP}`;

function progressLine(row: TaskView): string[] {
  const progress = row.approvals;
  if (!progress || row.state !== 'needs_approval') return [];
  const who = progress.received.map((r) => r.name ?? r.principal);
  return [
    `  ${progress.received.length} of ${progress.required} approvals${who.length ? ` (${who.join(', ')})` : ''}`,
  ];
}

function describeRow(row: TaskView): string[] {
  const deadline = row.deadline_at ? new Date(row.deadline_at).toISOString() : 'none';
  const what =
    row.state === 'awaiting_input'
      ? `question: ${row.prompt ?? ''}${row.options?.length ? ` [${row.options.join(' | ')}]` : ''}`
      : `call ${row.tool_name} ${JSON.stringify(row.tool_input ?? null)}`;
  return [
    `${row.run_id} ${row.key}  ${row.state}  expires ${deadline}  version ${row.version}`,
    `  ${what}`,
    ...progressLine(row),
  ];
}

/** The commands that decide exactly the version of a row shown. */
function decideLines(row: TaskView, repeatFlags: readonly string[]): string[] {
  const bound = [...repeatFlags, row.run_id, row.key, '--version', row.version].join(' ');
  if (row.state === 'needs_approval') {
    return [
      `  approve: airlock decisions approve ${bound}`,
      `  deny:    airlock decisions deny ${bound}`,
    ];
  }
  return [];
}

/** The `--version` of a decision, or a usage error (exit 2) when it is given empty. */
function versionOf(
  values: Record<string, string | boolean | undefined>,
  verb: string,
): { version?: string } {
  const version = values.version;
  if (version === undefined) return {};
  if (typeof version !== 'string' || version.trim() === '') {
    throw new UsageError(
      `airlock decisions ${verb}: --version wants the version \`decisions list\` or \`decisions show\` printed`,
    );
  }
  return { version };
}

/** What the verbs that name a row take after their name. */
const TASK = ['<run-id>', '<task-key>'];

/** The row a verb names, or a usage error (exit 2) when the command left it out. */
function taskOf(
  connection: Connection,
  runId: string | undefined,
  taskKey: string | undefined,
  verb: string,
): { workspace_id: string; run_id: string; task_key: string } {
  if (!runId || !taskKey)
    throw new UsageError(`airlock decisions ${verb}: give <run-id> <task-key>`);
  return { workspace_id: connection.workspace, run_id: runId, task_key: taskKey };
}

function parseInput(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new UsageError('airlock decisions approve: --input is the edited input as JSON');
  }
}

/** Runs `airlock decisions ...`; returns the exit code. */
export async function decisions(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'decisions', {
    list: {
      flags: { limit: { type: 'string' }, cursor: { type: 'string' }, all: { type: 'boolean' } },
    },
    show: { operands: TASK },
    approve: {
      operands: TASK,
      flags: { version: { type: 'string' }, input: { type: 'string' } },
    },
    deny: { operands: TASK, flags: { version: { type: 'string' }, reason: { type: 'string' } } },
    answer: {
      operands: TASK,
      flags: {
        content: { type: 'string' },
        decline: { type: 'boolean' },
        'resolution-token': { type: 'string' },
      },
    },
  });
  const [verb, runId, taskKey] = positionals;
  if (values.help || !verb) {
    process.stdout.write(DECISIONS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  switch (verb) {
    case 'list': {
      const { limit, cursor, all } = parsePaging(values, 'airlock decisions list');
      const body = await readPages(
        (after) =>
          connection.call('decisions.list', {
            workspace_id: connection.workspace,
            ...(limit ? { limit } : {}),
            ...(after ? { cursor: after } : {}),
          }),
        {
          command: 'airlock decisions list',
          cursor,
          all,
          rowsOf: (one) => one.decisions,
        },
      );
      print(connection, body, () => [
        ...(body.decisions.length === 0
          ? [
              body.total === 0 || cursor === undefined
                ? 'nothing is waiting for a person'
                : `no more decisions after this cursor (${body.total} wait in all: ${['airlock decisions list', ...connection.repeatFlags].join(' ')})`,
            ]
          : body.decisions.flatMap(describeRow)),
        ...nextPageLines({
          again: ['airlock decisions list', ...connection.repeatFlags, limit && `--limit ${limit}`],
          what: 'decisions',
          shown: body.decisions.length,
          total: body.total,
          nextCursor: body.next_cursor,
        }),
      ]);
      return 0;
    }
    case 'show': {
      const body = await connection.call('tasks.get', taskOf(connection, runId, taskKey, 'show'));
      print(connection, body, () => [
        ...describeRow(body),
        ...decideLines(body, connection.repeatFlags),
      ]);
      return 0;
    }
    case 'approve': {
      const body = await connection.call('decisions.approve', {
        ...taskOf(connection, runId, taskKey, 'approve'),
        ...versionOf(values, 'approve'),
        ...(typeof values.input === 'string' ? { tool_input: parseInput(values.input) } : {}),
      });
      const edited = typeof values.input === 'string';
      print(connection, body, () =>
        body.state !== 'needs_approval'
          ? [`approved ${runId} ${taskKey}`]
          : edited && body.approvals?.received.length === 0
            ? // Under no_self_approval an edited call is the editor's own: kept, not approved by them.
              [
                `your changes to ${runId} ${taskKey} are saved; the edited call waits for another member to approve it`,
                ...progressLine(body),
              ]
            : [`approval recorded for ${runId} ${taskKey}`, ...progressLine(body)],
      );
      return 0;
    }
    case 'deny': {
      const body = await connection.call('decisions.deny', {
        ...taskOf(connection, runId, taskKey, 'deny'),
        ...versionOf(values, 'deny'),
        ...(typeof values.reason === 'string' ? { reason: values.reason } : {}),
      });
      print(connection, body, () => [`denied ${runId} ${taskKey}`]);
      return 0;
    }
    case 'answer': {
      const content = values.content;
      // Both would decline and drop the text: the operator says which one they mean.
      if ((typeof content === 'string') === (values.decline === true)) {
        throw new UsageError('airlock decisions answer: give --content <text> or --decline');
      }
      // Blank (an unset shell variable) is no token: told here, not refused by the kernel.
      const resolutionToken = parseIdFilter(values['resolution-token'], {
        command: 'airlock decisions answer',
        flag: '--resolution-token',
        what: 'the resolution token, or - to read it from standard input',
      });
      const body = await connection.call('decisions.resolve', {
        ...taskOf(connection, runId, taskKey, 'answer'),
        ...(typeof content === 'string' ? { content } : { outcome: 'failed' as const }),
        ...(resolutionToken !== undefined
          ? {
              resolution_token: await readSecretArgument(resolutionToken, {
                command: 'airlock decisions answer',
                what: 'resolution token',
                fromStdin: 'airlock decisions answer <run-id> <task-key> --resolution-token -',
                isSecret: () => true,
              }),
            }
          : {}),
      });
      print(connection, body, () => [`answered ${runId} ${taskKey}`]);
      return 0;
    }
    default:
      throw new UsageError(
        unknownVerbLine('decisions', verb, ['list', 'show', 'approve', 'deny', 'answer']),
      );
  }
}

import type { DeliveryView } from '@airlock/core';
import { unknownVerbLine } from '@airlock/core/command-line';
import {
  CONNECTION_HELP,
  connectionFrom,
  parseOperatorArgs,
  print,
  UsageError,
} from './connection.js';
import { parseChoice, parseIdFilter } from './filter-values.js';
import { nextPageLines, parsePaging, readPages } from './paging.js';

/** `airlock notifications --help` */
export const NOTIFICATIONS_HELP = `Usage:
  airlock notifications list [--state pending|delivered|dead] [--run <run-id>] [--limit <n>]
                             [--cursor <c> | --all]
  airlock notifications redeliver <delivery-id>

Lists the notification outbox (one delivery per channel for each event that
needs a person) and sends a notice again, with the same idempotency id, after
its channel is fixed. list shows the newest 100 unless --limit says (1 to
1000); when more exist it prints the command that reads the next page
(--cursor); --all reads every page. Needs a member credential.

${CONNECTION_HELP}`;

function describeRow(row: DeliveryView): string[] {
  const lines = [
    `${row.id}  ${row.state}  ${row.channel} (${row.channel_kind})  ${row.event_type}  ${row.run_id}${row.task_key ? ` ${row.task_key}` : ''}  attempts ${row.attempts}`,
  ];
  if (row.last_error) lines.push(`  last error: ${row.last_error}`);
  return lines;
}

/** Runs `airlock notifications ...`; returns the exit code. */
export async function notifications(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'notifications', {
    list: {
      flags: {
        state: { type: 'string' },
        run: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        all: { type: 'boolean' },
      },
    },
    redeliver: { operands: ['<delivery-id>'] },
  });
  const [verb, id] = positionals;
  if (values.help || !verb) {
    process.stdout.write(NOTIFICATIONS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  switch (verb) {
    case 'list': {
      const command = 'airlock notifications list';
      const state = parseChoice(values.state, {
        command,
        flag: '--state',
        // The states come with the contracts' schemas: loaded only when a filter names one.
        choices:
          values.state === undefined
            ? []
            : (await import('@airlock/core')).DeliveryViewSchema.shape.state.options,
      });
      const run_id = parseIdFilter(values.run, { command, flag: '--run', what: 'a run id' });
      const { limit, cursor, all } = parsePaging(values, command);
      const page = (after: string | undefined) =>
        connection.call('notifications.list', {
          workspace_id: connection.workspace,
          ...(state ? { state } : {}),
          ...(run_id ? { run_id } : {}),
          ...(limit ? { limit } : {}),
          ...(after ? { cursor: after } : {}),
        });
      const body = await readPages(page, {
        command,
        cursor,
        all,
        rowsOf: (one) => one.deliveries,
      });
      print(connection, body, () => [
        ...(body.deliveries.length === 0
          ? [cursor === undefined ? 'no notifications' : 'no more notifications after this cursor']
          : body.deliveries.flatMap(describeRow)),
        ...nextPageLines({
          again: [
            command,
            ...connection.repeatFlags,
            state && `--state ${state}`,
            run_id && `--run ${run_id}`,
            limit && `--limit ${limit}`,
          ],
          what: 'notifications',
          shown: body.deliveries.length,
          nextCursor: body.next_cursor,
        }),
      ]);
      return 0;
    }
    case 'redeliver': {
      if (!id) throw new UsageError('airlock notifications redeliver: give <delivery-id>');
      const body = await connection.call('notifications.redeliver', {
        workspace_id: connection.workspace,
        delivery_id: id,
      });
      print(connection, body, () => [`${body.id} is due again now (${body.channel})`]);
      return 0;
    }
    default:
      throw new UsageError(unknownVerbLine('notifications', verb, ['list', 'redeliver']));
  }
}

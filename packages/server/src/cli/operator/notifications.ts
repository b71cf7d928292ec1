import {
  CONNECTION_HELP,
  callKernel,
  connectionFrom,
  OperatorError,
  parseOperatorArgs,
  print,
  workspacePath,
} from './connection.js';

/** `airlock notifications --help` */
export const NOTIFICATIONS_HELP = `Usage:
  airlock notifications list [--state pending|delivered|dead] [--run <run-id>] [--limit <n>]
  airlock notifications redeliver <delivery-id>

Lists the notification outbox (one delivery per channel for each event that
needs a person) and sends a notice again, with the same idempotency id, after
its channel is fixed. Needs a member credential.

${CONNECTION_HELP}`;

interface DeliveryRow {
  id: string;
  run_id: string;
  task_key: string | null;
  event_type: string;
  channel: string;
  channel_kind: string;
  state: string;
  attempts: number;
  last_error: string | null;
}

function describeRow(row: DeliveryRow): string[] {
  const lines = [
    `${row.id}  ${row.state}  ${row.channel} (${row.channel_kind})  ${row.event_type}  ${row.run_id}${row.task_key ? ` ${row.task_key}` : ''}  attempts ${row.attempts}`,
  ];
  if (row.last_error) lines.push(`  last error: ${row.last_error}`);
  return lines;
}

/** Runs `airlock notifications ...`; returns the exit code. */
export async function notifications(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, {
    state: { type: 'string' },
    run: { type: 'string' },
    limit: { type: 'string' },
  });
  const [verb, id] = positionals;
  if (values.help || !verb) {
    process.stdout.write(NOTIFICATIONS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  switch (verb) {
    case 'list': {
      const query = new URLSearchParams();
      if (typeof values.state === 'string') query.set('state', values.state);
      if (typeof values.run === 'string') query.set('run_id', values.run);
      if (typeof values.limit === 'string') query.set('limit', values.limit);
      const suffix = query.size > 0 ? `?${query}` : '';
      const body = await callKernel<{ deliveries: DeliveryRow[] }>(
        connection,
        'GET',
        `${workspacePath(connection)}/notifications${suffix}`,
      );
      print(connection, body, () =>
        body.deliveries.length === 0 ? ['no notifications'] : body.deliveries.flatMap(describeRow),
      );
      return 0;
    }
    case 'redeliver': {
      if (!id) throw new OperatorError('airlock notifications redeliver: give <delivery-id>', 2);
      const body = await callKernel<DeliveryRow>(
        connection,
        'POST',
        `${workspacePath(connection)}/notifications/${encodeURIComponent(id)}/redeliver`,
        {},
      );
      print(connection, body, () => [`${body.id} is due again now (${body.channel})`]);
      return 0;
    }
    default:
      throw new OperatorError(`airlock notifications: unknown verb "${verb}" (list, redeliver)`, 2);
  }
}

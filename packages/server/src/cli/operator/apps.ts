import {
  CONNECTION_HELP,
  connectionFrom,
  OperatorError,
  parseOperatorArgs,
  print,
} from './connection.js';

/** `airlock apps --help` */
export const APPS_HELP = `Usage:
  airlock apps create <name>
  airlock apps list
  airlock apps remove <application-id>

Creates, lists and removes the workspace's agent applications through a
running kernel, with a member credential. Mint a new application's tokens with
\`airlock tokens create --kind agent|executor --application <id>\`. Removing
one fences its credentials at once and stops its running runs.

${CONNECTION_HELP}`;

/** Runs `airlock apps ...`; returns the exit code. */
export async function apps(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, {});
  const [verb, target] = positionals;
  if (values.help || !verb) {
    process.stdout.write(APPS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  const workspace_id = connection.workspace;
  switch (verb) {
    case 'create': {
      if (!target) throw new OperatorError('airlock apps create: give <name>', 2);
      const made = await connection.call('agentApplications.create', {
        workspace_id,
        name: target,
      });
      print(connection, made, () => [`created agent application ${made.id} (${made.name})`]);
      return 0;
    }
    case 'list': {
      const listed = await connection.call('agentApplications.list', { workspace_id });
      print(connection, listed, () =>
        listed.agent_applications.length === 0
          ? ['no agent applications']
          : listed.agent_applications.map(
              (a) => `${a.id}\t${a.removed_at ? 'removed' : 'active'}\t${a.name}`,
            ),
      );
      return 0;
    }
    case 'remove': {
      if (!target) throw new OperatorError('airlock apps remove: give <application-id>', 2);
      const removed = await connection.call('agentApplications.remove', {
        workspace_id,
        agent_application_id: target,
      });
      print(connection, removed, () => [
        `removed ${target}; stopping ${removed.stopping_run_ids.length} run(s)`,
      ]);
      return 0;
    }
    default:
      throw new OperatorError(`airlock apps: unknown verb "${verb}" (create, list, remove)`, 2);
  }
}

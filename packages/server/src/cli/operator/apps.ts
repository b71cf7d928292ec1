import { unknownVerbLine } from '@airlock/core/command-line';
import {
  CONNECTION_HELP,
  type Connection,
  connectionFrom,
  isKernelRefusal,
  OperatorError,
  parseOperatorArgs,
  print,
  UsageError,
} from './connection.js';

/** `airlock apps --help` */
export const APPS_HELP = `Usage:
  airlock apps create <name>
  airlock apps list
  airlock apps remove <application-id>

Creates, lists and removes the workspace's agent applications through a
running kernel, with a member credential. Mint a new application's tokens with
\`airlock tokens create --kind agent|executor --application <id>\`. Removing
one fences its credentials at once and stops its running runs; an
application that active member credentials belong to (the local workspace's,
which \`airlock serve\` and \`airlock token create\` give member tokens of) is
refused, since removing it would lock those members out: make a member
credential that outlives it first (\`airlock tokens create --kind member
--workspace-level\`), revoke theirs, then remove it.

${CONNECTION_HELP}`;

/**
 * Tells the kernel's refusal to remove an application that active member
 * credentials belong to (the removal would fence them and lock the operators
 * holding them, perhaps this one, out) by naming those credentials.
 * @returns OperatorError (exit 1) naming them and what to do instead.
 */
async function describeLockout(
  connection: Connection,
  application: string,
): Promise<OperatorError> {
  const workspace_id = connection.workspace;
  const { credentials } = await connection.call('credentials.list', { workspace_id });
  const members = credentials.filter(
    (c) => c.kind === 'member' && c.agent_application_id === application,
  );
  const self = await connection.call('credentials.self', { workspace_id });
  const named = members.map(
    (c) =>
      `${c.credential_id} "${c.label}"${c.credential_id === self.credential_id ? ' (yours)' : ''}`,
  );
  return new OperatorError(
    `airlock apps remove: ${application} has ${members.length} active member credential(s): ${named.join(', ')}; ` +
      'removing it would fence them and lock those members out. Make a member credential that outlives it ' +
      '(airlock tokens create --kind member --workspace-level), revoke these, then remove it',
    1,
  );
}

/** Runs `airlock apps ...`; returns the exit code. */
export async function apps(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'apps', {
    create: { operands: ['<name>'] },
    list: {},
    remove: { operands: ['<application-id>'] },
  });
  const [verb, target] = positionals;
  if (values.help || !verb) {
    process.stdout.write(APPS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  const workspace_id = connection.workspace;
  switch (verb) {
    case 'create': {
      if (!target) throw new UsageError('airlock apps create: give <name>');
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
          : listed.agent_applications.map((a) => [
              a.id,
              a.removed_at ? 'removed' : 'active',
              a.name,
            ]),
      );
      return 0;
    }
    case 'remove': {
      if (!target) throw new UsageError('airlock apps remove: give <application-id>');
      const removed = await connection
        .call('agentApplications.remove', { workspace_id, agent_application_id: target })
        .catch(async (error: unknown) => {
          // The kernel refuses it; the operator is told which credentials and whose.
          if (await isKernelRefusal(error, 'application_has_member_credentials')) {
            throw await describeLockout(connection, target);
          }
          throw error;
        });
      print(connection, removed, () => [
        `removed ${target}; stopping ${removed.stopping_run_ids.length} run(s)`,
      ]);
      return 0;
    }
    default:
      throw new UsageError(unknownVerbLine('apps', verb, ['create', 'list', 'remove']));
  }
}

import { forTerminal } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { recordCredentialCreated } from '../kernel/verbs/account-changes.js';
import { revokeCredentialAndReaddress } from '../kernel/verbs/revocation.js';
import {
  type CredentialKind,
  createCredential,
  listCredentials,
  type MemberRole,
} from '../store/accounts.js';
import type { Store } from '../store/store.js';
import { asStoreError, StoreUnavailableError } from '../store/store-errors.js';
import {
  flagText,
  type ParsedCommandLine,
  parseVerbCommandLine,
  storeLocationOf,
} from './command-line.js';
import { MissingStoreError, openExistingStore } from './existing-store.js';
import { ensureLocalWorkspace } from './local-workspace.js';
import { looksLikeToken, readSecretArgument } from './secret-input.js';
import { terminalLine } from './terminal-lines.js';

/** `airlock token --help` */
export const TOKEN_HELP = `Usage:
  airlock token create --kind agent|executor|member [--role admin|approver] [--label <text>] [store options]
  airlock token revoke <credential-id or token | -> [store options]
  airlock token list [store options]

Creates, revokes or lists bearer credentials of the local workspace. A token
is printed once, on stdout; only its SHA-256 is stored. Revoking an
application's last executor credential leaves the parks and questions held
for it addressed to nobody: a member still answers them. A member credential
is an approver (decides calls) unless --role admin makes it an admin (also
manages credentials, applications and policies). "list" shows each
credential's id, kind, role (- for agent and executor), state and label.
To revoke by the token itself, pass it on standard input (\`airlock token
revoke - < token-file\`): a token on the command line still works, with a
warning, since any user can read it in \`ps\` and it stays in shell history.

Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL)
`;

const KINDS: CredentialKind[] = ['agent', 'executor', 'member'];
const ROLES: MemberRole[] = ['admin', 'approver'];

/** Runs `airlock token ...`; returns the exit code. */
export async function token(argv: string[]): Promise<number> {
  const { values, positionals } = parseVerbCommandLine(argv, {
    command: 'airlock token',
    common: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    verbs: {
      create: {
        flags: { kind: { type: 'string' }, role: { type: 'string' }, label: { type: 'string' } },
      },
      revoke: { operands: ['<credential-id or token>'] },
      list: {},
    },
  });
  const [verb, target] = positionals;
  if (values.help || !verb) {
    process.stdout.write(TOKEN_HELP);
    return values.help ? 0 : 2;
  }
  const location = storeLocationOf(values, 'airlock token');
  let store: Store | undefined;
  try {
    store = await openExistingStore(location);
    return await runVerb(store, verb, target, values);
  } catch (error) {
    if (error instanceof MissingStoreError) {
      process.stderr.write(`airlock token: ${error.code}: ${forTerminal(error.message)}\n`);
      return 1;
    }
    // A full disk, an I/O error, a database that went away: the store's stable code, no stack.
    const mapped = asStoreError(error);
    if (!(mapped instanceof StoreUnavailableError)) throw error;
    process.stderr.write(`airlock token ${verb}: ${mapped.code}: ${mapped.detail}\n`);
    return 1;
  } finally {
    // What was committed stays committed: a close that fails (a checkpoint on a full disk) changes no answer.
    await store?.close().catch(() => {});
  }
}

/** Runs one verb on the open store; returns the exit code. */
async function runVerb(
  store: Store,
  verb: string,
  target: string | undefined,
  values: ParsedCommandLine['values'],
): Promise<number> {
  const local = await ensureLocalWorkspace(store);
  if (verb === 'create') {
    const kind = values.kind as CredentialKind;
    if (!KINDS.includes(kind)) {
      process.stderr.write('airlock token create: --kind must be agent, executor or member\n');
      return 2;
    }
    const role = values.role as MemberRole | undefined;
    if (role !== undefined && (!ROLES.includes(role) || kind !== 'member')) {
      process.stderr.write(
        'airlock token create: --role must be admin or approver, for a member credential\n',
      );
      return 2;
    }
    const made = await createCredential(store, {
      workspaceId: local.workspaceId,
      kind,
      agentApplicationId: local.agentApplicationId,
      ...(role ? { role } : {}),
      label: flagText(values, 'label') ?? kind,
      recordIn: (tx, made) => recordCredentialCreated(tx, 'operator:cli', made),
    });
    process.stderr.write(
      `created ${made.credential.role ? `${made.credential.role} ` : ''}${kind} credential ${made.credential.credential_id} in ${local.workspaceId}\n`,
    );
    process.stdout.write(`${made.token}\n`);
    return 0;
  }
  if (verb === 'revoke') {
    if (!target) {
      process.stderr.write('airlock token revoke: name a credential id or a token\n');
      return 2;
    }
    try {
      const idOrToken = await readSecretArgument(target, {
        command: 'airlock token revoke',
        what: 'credential id or token',
        fromStdin: 'airlock token revoke -',
        isSecret: looksLikeToken,
      });
      const revoked = await revokeCredentialAndReaddress(store, {
        idOrToken,
        principal: 'operator:cli',
      });
      const moved = revoked.readdressed.length;
      process.stderr.write(
        `revoked${moved > 0 ? `; ${moved} held row(s) now addressed to nobody (a member answers them)` : ''}\n`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof AirlockError)) throw error;
      process.stderr.write(`airlock token: ${error.code}: ${forTerminal(error.detail)}\n`);
      return 1;
    }
  }
  if (verb === 'list') {
    for (const credential of await listCredentials(store, local.workspaceId)) {
      const state = credential.revoked_at ? 'revoked' : 'active';
      const row = [credential.credential_id, credential.kind, credential.role ?? '-', state];
      process.stdout.write(`${terminalLine([...row, credential.label])}\n`);
    }
    return 0;
  }
  process.stderr.write(`airlock token: unknown verb ${verb}\n${TOKEN_HELP}`);
  return 2;
}

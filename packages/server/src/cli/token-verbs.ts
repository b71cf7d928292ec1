import { forTerminal } from '@airlock/core/command-line';
import { AirlockError } from '../errors.js';
import { recordCredentialCreated } from '../kernel/verbs/account-changes.js';
import { revokeCredentialAndReaddress } from '../kernel/verbs/revocation.js';
import {
  type CredentialKind,
  createCredential,
  listCredentials,
  listWorkspaces,
  type MemberRole,
} from '../store/accounts.js';
import { OlderStoreServedError } from '../store/pending-upgrade.js';
import type { Store, StoreLocation } from '../store/store.js';
import { asStoreError, StoreUnavailableError } from '../store/store-errors.js';
import { MissingStoreError, openExistingStore } from './existing-store.js';
import { ensureLocalWorkspace } from './local-workspace.js';
import { warnUnreachableRules } from './operator/unreachable-rules.js';
import { looksLikeToken, readSecretArgument } from './secret-input.js';
import { connectionRefusalDetail } from './serve-store-unreachable.js';
import { terminalLine } from './terminal-lines.js';

/** What a verb of `airlock token` was asked to do, its command line checked (token.ts). */
export type TokenVerb =
  | {
      verb: 'create';
      kind: CredentialKind;
      role: MemberRole | undefined;
      label: string | undefined;
    }
  | { verb: 'revoke'; target: string }
  | { verb: 'list' };

/**
 * Runs a checked verb of `airlock token` on the store a kernel created at
 * `location`; returns the exit code. A store that is missing or unavailable
 * is said on stderr with its stable code (exit 1), never a stack, and so is
 * a store older than this build that a kernel may still serve (`kernel_running`).
 */
export async function runTokenVerb(location: StoreLocation, asked: TokenVerb): Promise<number> {
  let store: Store | undefined;
  try {
    store = await openExistingStore(location);
    return await runVerb(store, asked);
  } catch (error) {
    if (error instanceof MissingStoreError || error instanceof OlderStoreServedError) {
      process.stderr.write(`airlock token: ${error.code}: ${forTerminal(error.message)}\n`);
      return 1;
    }
    // A URL that cannot work (its TLS, its login): what to fix, not a retry.
    const refused =
      location.databaseUrl && connectionRefusalDetail(error, '--database-url or DATABASE_URL');
    if (refused) {
      process.stderr.write(
        `airlock token ${asked.verb}: store_unreachable: ${forTerminal(refused)}\n`,
      );
      return 1;
    }
    // A full disk, an I/O error, a database that went away: the store's stable code, no stack.
    const mapped = asStoreError(error);
    if (!(mapped instanceof StoreUnavailableError)) throw error;
    process.stderr.write(`airlock token ${asked.verb}: ${mapped.code}: ${mapped.detail}\n`);
    return 1;
  } finally {
    // What was committed stays committed: a close that fails (a checkpoint on a full disk) changes no answer.
    await store?.close().catch(() => {});
  }
}

/** Runs one verb on the open store; returns the exit code. */
async function runVerb(store: Store, asked: TokenVerb): Promise<number> {
  if (asked.verb === 'create') {
    // A token belongs to an application: made here (recorded) when every one was removed.
    const local = await ensureLocalWorkspace(store);
    const { kind, role } = asked;
    const made = await createCredential(store, {
      workspaceId: local.workspaceId,
      kind,
      agentApplicationId: local.agentApplicationId,
      ...(role ? { role } : {}),
      label: asked.label ?? kind,
      recordIn: (tx, made) => recordCredentialCreated(tx, 'operator:cli', made),
    });
    process.stderr.write(
      `created ${made.credential.role ? `${made.credential.role} ` : ''}${kind} credential ${made.credential.credential_id} in ${local.workspaceId}\n`,
    );
    process.stdout.write(`${made.token}\n`);
    return 0;
  }
  if (asked.verb === 'revoke') {
    try {
      const idOrToken = await readSecretArgument(asked.target, {
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
      warnUnreachableRules(revoked.unreachable_approval_rules);
      return 0;
    } catch (error) {
      if (!(error instanceof AirlockError)) throw error;
      process.stderr.write(`airlock token: ${error.code}: ${forTerminal(error.detail)}\n`);
      return 1;
    }
  }
  // Reading only: the workspace the store holds (openExistingStore refused one with none).
  const [workspace] = await listWorkspaces(store);
  for (const credential of await listCredentials(store, workspace!.id)) {
    const state = credential.revoked_at ? 'revoked' : 'active';
    const row = [credential.credential_id, credential.kind, credential.role ?? '-', state];
    process.stdout.write(`${terminalLine([...row, credential.label])}\n`);
  }
  return 0;
}

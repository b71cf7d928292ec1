import type { PolicyChange } from '@airlock/core';
import type { CredentialInfo } from '../../store/accounts.js';
import type { Tx } from '../../store/store.js';
import { recordPolicyChange } from './policy-changes.js';

/*
 * Who may act in a workspace is policy too: a member credential can approve, an executor can run
 * what is granted. Each change of it (a credential made, relabelled or revoked, an application
 * made or removed) goes on the audit trail beside the documents' changes, in the transaction
 * that made it, with who made it.
 */

type AccountChange = Extract<
  PolicyChange['change'],
  | 'credential_created'
  | 'credential_relabelled'
  | 'credential_revoked'
  | 'agent_application_created'
  | 'agent_application_removed'
>;

function recordAccountChange(
  tx: Tx,
  options: {
    workspaceId: string;
    principal: string;
    change: AccountChange;
    ownerId: string;
    before?: Record<string, unknown> | null;
    after?: Record<string, unknown>;
    detail: string;
  },
): void {
  const credential = options.change.startsWith('credential_');
  recordPolicyChange(tx, {
    workspaceId: options.workspaceId,
    principal: options.principal,
    change: {
      change: options.change,
      scope: credential ? 'credential' : 'agent_application',
      owner_id: options.ownerId,
      before_digest: null,
      after_digest: null,
      ...(options.before === undefined ? {} : { before: options.before }),
      ...(options.after === undefined ? {} : { after: options.after }),
    },
    detail: options.detail,
  });
}

/** What a credential is, as its records show it (never its token). */
function credentialFacts(
  credential: Pick<CredentialInfo, 'kind' | 'agent_application_id' | 'role' | 'label'>,
): Record<string, unknown> {
  return {
    kind: credential.kind,
    agent_application_id: credential.agent_application_id,
    // Only a member credential has a role; who may govern the workspace is on the record.
    ...(credential.role === null ? {} : { role: credential.role }),
    label: credential.label,
  };
}

/** Records a credential made by `principal` (a member, `operator:cli`, or `kernel` at first start). */
export function recordCredentialCreated(tx: Tx, principal: string, made: CredentialInfo): void {
  recordAccountChange(tx, {
    workspaceId: made.workspace_id,
    principal,
    change: 'credential_created',
    ownerId: made.credential_id,
    before: null,
    after: credentialFacts(made),
    detail: `created ${made.role ? `${made.role} ` : ''}${made.kind} credential ${made.credential_id} (${made.label})`,
  });
}

/** Records a credential's new label, with the old one: past decisions show names read later. */
export function recordCredentialRelabelled(
  tx: Tx,
  principal: string,
  change: { before: CredentialInfo; after: CredentialInfo },
): void {
  recordAccountChange(tx, {
    workspaceId: change.after.workspace_id,
    principal,
    change: 'credential_relabelled',
    ownerId: change.after.credential_id,
    before: credentialFacts(change.before),
    after: credentialFacts(change.after),
    detail: `relabelled ${change.after.kind} credential ${change.after.credential_id} from "${change.before.label}" to "${change.after.label}"`,
  });
}

/**
 * Records a credential's revocation, with what it was (its kind, application, role and label):
 * the trail shows that an admin was revoked, and under which name, once its row reads revoked.
 */
export function recordCredentialRevoked(
  tx: Tx,
  options: {
    workspaceId: string;
    principal: string;
    credential: Pick<
      CredentialInfo,
      'credential_id' | 'kind' | 'agent_application_id' | 'role' | 'label'
    >;
  },
): void {
  const { credential } = options;
  recordAccountChange(tx, {
    workspaceId: options.workspaceId,
    principal: options.principal,
    change: 'credential_revoked',
    ownerId: credential.credential_id,
    before: credentialFacts(credential),
    detail: `revoked ${credential.role ? `${credential.role} ` : ''}${credential.kind} credential ${credential.credential_id} (${credential.label})`,
  });
}

/** Records an agent application made or removed. */
export function recordApplicationChange(
  tx: Tx,
  options: {
    workspaceId: string;
    principal: string;
    applicationId: string;
    change: 'agent_application_created' | 'agent_application_removed';
    name?: string;
  },
): void {
  const created = options.change === 'agent_application_created';
  recordAccountChange(tx, {
    workspaceId: options.workspaceId,
    principal: options.principal,
    change: options.change,
    ownerId: options.applicationId,
    ...(created ? { before: null, after: { name: options.name ?? null } } : {}),
    detail: `${created ? 'created' : 'removed'} agent application ${options.applicationId}${options.name ? ` (${options.name})` : ''}`,
  });
}

import type { OverlayDocument } from '@airlock/core';
import { readOverlay, replaceOverlay } from '../../store/overlays.js';
import type { Tx } from '../../store/store.js';
import { recordPolicyChange } from './policy-changes.js';

/** A document without its allow rules: the deny, ask and guardrail rules kept, in their order. */
function withoutAllows(document: OverlayDocument): OverlayDocument {
  return document.map((group) => ({
    ...group,
    rules: group.rules.filter((rule) => rule.verdict !== 'allow'),
  }));
}

/**
 * Drops the allow rules (remembered approvals among them) from a revoked
 * member's user document, in the revocation's unit, on the audit trail as
 * an `overlay_replaced` by whoever revoked. That document still applies to
 * the runs the member started, which go on after the revocation: the member's
 * standing allows would otherwise keep granting calls in them. Its deny and
 * ask rules and its guardrails stay (dropping an allow only ever asks more),
 * and another admin may still remove those. Answers how many were dropped.
 */
export async function dropRevokedMemberAllows(
  tx: Tx,
  options: { workspaceId: string; credentialId: string; principal: string },
): Promise<number> {
  const key = {
    workspaceId: options.workspaceId,
    scope: 'user' as const,
    ownerId: `member:${options.credentialId}`,
  };
  const current = await readOverlay(tx, key);
  const kept = withoutAllows(current.groups);
  const count = (document: OverlayDocument) =>
    document.reduce((sum, group) => sum + group.rules.length, 0);
  const dropped = count(current.groups) - count(kept);
  if (dropped === 0) return 0;
  const written = await replaceOverlay(tx, key, {
    expectedDigest: current.digest,
    document: kept,
    by: options.principal,
  });
  recordPolicyChange(tx, {
    workspaceId: options.workspaceId,
    principal: options.principal,
    change: {
      change: 'overlay_replaced',
      scope: 'user',
      owner_id: key.ownerId,
      before_digest: current.digest,
      after_digest: written.digest,
    },
    detail: `dropped ${dropped} allow rule(s) from the user overlay of revoked member ${key.ownerId}: a revoked member's allows grant nothing in the runs they started`,
  });
  return dropped;
}

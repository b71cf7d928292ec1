import type { OverlayDocument, OwnedOverlay } from '@airlock/core';
import {
  readOverlayDocuments,
  readUserOverlayDigests,
  type UserOverlayDigest,
} from '../../store/overlays.js';
import type { Tx } from '../../store/store.js';

/**
 * A workspace's guardrails (the `"guardrail": true` rules of every member's
 * user document), kept per workspace under the owners and digests of the
 * documents they came from. A digest is the hash of its document, so an entry
 * is never stale: a change anywhere (this process, or another kernel on the
 * same PostgreSQL database) changes the digests a reader sees, and the next
 * read of them misses the entry and reads the documents again.
 */
const cached = new Map<string, { version: string; guardrails: readonly OwnedOverlay[] }>();
const CACHE_LIMIT = 2000;

/** The version of a workspace's guardrails: its user documents' owners and digests. */
function versionOf(documents: readonly UserOverlayDigest[]): string {
  return documents
    .map((document) => `${document.owner_id}\u0000${document.digest}`)
    .sort()
    .join('\n');
}

function keep(workspaceId: string, version: string, guardrails: readonly OwnedOverlay[]): void {
  if (cached.size >= CACHE_LIMIT) cached.clear();
  cached.set(workspaceId, { version, guardrails });
}

/**
 * The guardrails of a workspace's user documents, as read (owner, document
 * text and digest of each): parsed only when their digests differ from the
 * cached entry's, which they then replace.
 */
export function guardrailsOfDocuments(
  workspaceId: string,
  documents: readonly (UserOverlayDigest & { document: string })[],
): readonly OwnedOverlay[] {
  const version = versionOf(documents);
  const entry = cached.get(workspaceId);
  if (entry?.version === version) return entry.guardrails;
  const guardrails: OwnedOverlay[] = [];
  for (const row of documents) {
    const document = JSON.parse(row.document) as OverlayDocument;
    if (document.some((group) => group.rules.some((rule) => rule.guardrail === true))) {
      guardrails.push({ owner: row.owner_id, document });
    }
  }
  keep(workspaceId, version, guardrails);
  return guardrails;
}

/**
 * The guardrails of a workspace whose user documents have these owners and
 * digests, as its unit of work reads them: the cached entry when the digests
 * match it, else every user document read again and parsed.
 */
export async function guardrailsOfDigests(
  tx: Tx,
  workspaceId: string,
  digests: readonly UserOverlayDigest[],
): Promise<readonly OwnedOverlay[]> {
  if (digests.length === 0) return [];
  const entry = cached.get(workspaceId);
  if (entry?.version === versionOf(digests)) return entry.guardrails;
  const rows = await readOverlayDocuments(tx, workspaceId, [], { everyUserDocument: true });
  return guardrailsOfDocuments(
    workspaceId,
    rows.filter((row) => row.scope === 'user'),
  );
}

/**
 * The guardrails that bind every run of a workspace as its unit of work
 * reads them: the owners and digests of its user documents are read (a
 * small read, `ahead` when it was sent with an earlier statement), and the
 * documents themselves only when those changed since this process last
 * read them.
 */
export async function workspaceGuardrails(
  tx: Tx,
  workspaceId: string,
  ahead?: Promise<UserOverlayDigest[]>,
): Promise<readonly OwnedOverlay[]> {
  return guardrailsOfDigests(
    tx,
    workspaceId,
    await (ahead ?? readUserOverlayDigests(tx, workspaceId)),
  );
}

import type { ActiveOverlays, OverlayDocument } from '@airlock/core';
import type { RunTable } from '../../store/schema.js';
import {
  type RunOverlayOwners,
  readStageOverlays,
  type StageOverlayRow,
  sendStageOverlaysAhead,
} from '../../store/stage-overlays.js';
import type { Tx } from '../../store/store.js';
import { guardrailsOfDigests } from './workspace-guardrails.js';

/**
 * The overlay documents that apply to a run at the approval stage: the
 * ordinary rules of the member who created it, its application's project
 * document (only when trusted), its conversation's, and the workspace's
 * guardrails (every member's user document binds every run whoever started
 * it). The guardrails come from the digest-checked cache of
 * workspace-guardrails.ts, the one place they are kept: each call reads the
 * user documents' digests in the same statement as the run's own documents,
 * so a guardrail an admin added, lifted or changed (in this kernel or another
 * one on the same PostgreSQL database) binds the very next call.
 */

/** The member principal whose user overlay applies to a run: the member who created it. */
export function runUser(run: Pick<RunTable, 'created_by'>): string | null {
  return run.created_by.startsWith('member:') ? run.created_by : null;
}

function ownersOf(run: RunTable): RunOverlayOwners {
  return {
    user: runUser(run),
    project: run.agent_application_id,
    conversation: run.conversation_id,
  };
}

/**
 * On PostgreSQL, sends the overlay read the approval stage makes for a call
 * of `run` with the unit's next statement (see `readAhead`), so that the
 * stage, when it runs later in this unit, takes its rows without a round
 * trip of its own. The caller must send a statement before the stage runs,
 * and write no overlay document in between. Nothing happens on SQLite.
 */
export function sendOverlaysAhead(tx: Tx, run: RunTable): void {
  sendStageOverlaysAhead(tx, run.workspace_id, ownersOf(run));
}

/** Loads the overlay documents that apply to a run, and the workspace's guardrails. */
export async function activeOverlays(tx: Tx, run: RunTable): Promise<ActiveOverlays> {
  const rows = await readStageOverlays(tx, run.workspace_id, ownersOf(run));
  const overlays: {
    -readonly [K in Exclude<keyof ActiveOverlays, 'guardrails'>]?: OverlayDocument;
  } = {};
  const digests: StageOverlayRow[] = [];
  for (const row of rows) {
    if (row.scope === 'user') digests.push(row);
    // Another member's user document is read by digest alone, for the guardrails.
    if (row.document === null) continue;
    if (row.scope === 'project' && row.trusted_digest !== row.digest) continue;
    overlays[row.scope] = JSON.parse(row.document) as OverlayDocument;
  }
  return {
    ...overlays,
    guardrails: await guardrailsOfDigests(tx, run.workspace_id, digests),
  };
}

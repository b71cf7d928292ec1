import { isStorableText } from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { DeliveryCursor } from '../store/notifications.js';
import type { RunCursor } from '../store/runs.js';
import type { DecisionCursor } from '../store/tasks.js';

/*
 * The lists' page cursors: base64url JSON of where the next page starts, read back only when
 * they encode back to the same text, so a cursor is opaque and one list refuses another's.
 */

/** A task key as the kernel plants them: `t` and a number without leading zeros. */
const TASK_KEY = /^t[1-9][0-9]*$/;

function readJson(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

function refused(list: string): AirlockError {
  return new AirlockError('invalid_input', `cursor: not a cursor this ${list} returned`, [
    {
      code: 'invalid_cursor',
      pointer: '/cursor',
      message: `not a cursor this ${list} returned; pass a next_cursor as it came`,
    },
  ]);
}

/**
 * A page of a list read one row past its `limit` (the row past tells whether another page
 * follows): its rows, and the cursor after its last row while one follows, else null. With no
 * limit, every row and null.
 */
export function pageOf<Row>(
  rows: readonly Row[],
  limit: number | undefined,
  cursorAfter: (row: Row) => string,
): { page: Row[]; next_cursor: string | null } {
  if (limit === undefined || rows.length <= limit) return { page: [...rows], next_cursor: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, next_cursor: last === undefined ? null : cursorAfter(last) };
}

/** The cursor after a run of the runs list: its (created_at, id), base64url JSON. */
export function encodeRunCursor(run: { created_at: number; id: string }): string {
  return Buffer.from(JSON.stringify([run.created_at, run.id])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeRunCursor}: one that encodes back to
 * the same text, whose id no store would refuse (NUL, on PostgreSQL) or read
 * otherwise, so every store answers a made-up cursor alike.
 * @throws AirlockError invalid_input for anything else.
 */
export function decodeRunCursor(cursor: string): RunCursor {
  const parts = readJson(cursor);
  if (
    !Array.isArray(parts) ||
    parts.length !== 2 ||
    !Number.isSafeInteger(parts[0]) ||
    typeof parts[1] !== 'string' ||
    !isStorableText(parts[1]) ||
    encodeRunCursor({ created_at: parts[0], id: parts[1] }) !== cursor
  ) {
    throw refused('runs list');
  }
  return { createdAt: parts[0] as number, id: parts[1] };
}

/** The cursor after a row of a run's task list: the run's id and the row's key, base64url JSON. */
export function encodeTaskCursor(row: { run_id: string; key: string }): string {
  return Buffer.from(JSON.stringify([row.run_id, row.key])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeTaskCursor} for this run's list: one
 * that encodes back to the same text and names this run and a key as the
 * kernel plants them; the key after which the page starts.
 * @throws AirlockError invalid_input for anything else (another run's cursor too).
 */
export function decodeTaskCursor(cursor: string, runId: string): string {
  const parts = readJson(cursor);
  if (
    !Array.isArray(parts) ||
    parts.length !== 2 ||
    parts[0] !== runId ||
    typeof parts[1] !== 'string' ||
    !TASK_KEY.test(parts[1]) ||
    encodeTaskCursor({ run_id: runId, key: parts[1] }) !== cursor
  ) {
    throw refused("run's task list");
  }
  return parts[1];
}

/** The cursor after a row of the waiting list: its (created_at, run_id, key), base64url JSON. */
export function encodeDecisionCursor(row: { created_at: number; run_id: string; key: string }) {
  return Buffer.from(JSON.stringify([row.created_at, row.run_id, row.key])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeDecisionCursor}: one that encodes back
 * to the same text, whose ids no store would refuse (NUL, on PostgreSQL) or
 * read otherwise, so every store answers a made-up cursor alike.
 * @throws AirlockError invalid_input for anything else.
 */
export function decodeDecisionCursor(cursor: string): DecisionCursor {
  const parts = readJson(cursor);
  if (
    !Array.isArray(parts) ||
    parts.length !== 3 ||
    !Number.isSafeInteger(parts[0]) ||
    typeof parts[1] !== 'string' ||
    typeof parts[2] !== 'string' ||
    !isStorableText(parts[1]) ||
    !isStorableText(parts[2]) ||
    encodeDecisionCursor({ created_at: parts[0], run_id: parts[1], key: parts[2] }) !== cursor
  ) {
    throw refused('decisions list');
  }
  return { createdAt: parts[0] as number, runId: parts[1], key: parts[2] };
}

/**
 * Names the outbox list in its cursors: a runs cursor is (created_at, id) too,
 * and each list refuses the other's (docs/limits.md).
 */
const DELIVERIES = 'deliveries';

/** The cursor after a delivery of the outbox list: its (created_at, id), base64url JSON. */
export function encodeDeliveryCursor(row: { created_at: number; id: string }): string {
  return Buffer.from(JSON.stringify([DELIVERIES, row.created_at, row.id])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeDeliveryCursor}: one that names this
 * list and encodes back to the same text, whose id no store would refuse
 * (NUL, on PostgreSQL) or read otherwise, so every store answers a made-up
 * cursor alike.
 * @throws AirlockError invalid_input for anything else.
 */
export function decodeDeliveryCursor(cursor: string): DeliveryCursor {
  const parts = readJson(cursor);
  if (
    !Array.isArray(parts) ||
    parts.length !== 3 ||
    parts[0] !== DELIVERIES ||
    !Number.isSafeInteger(parts[1]) ||
    typeof parts[2] !== 'string' ||
    !isStorableText(parts[2]) ||
    encodeDeliveryCursor({ created_at: parts[1], id: parts[2] }) !== cursor
  ) {
    throw refused('notifications list');
  }
  return { createdAt: parts[1] as number, id: parts[2] };
}

import { isStorableText } from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { DecisionCursor } from '../store/tasks.js';

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
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parts = null;
  }
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
    throw new AirlockError('invalid_input', 'cursor: not a cursor this list returned', [
      {
        code: 'invalid_cursor',
        pointer: '/cursor',
        message: 'not a cursor this decisions list returned; pass a next_cursor as it came',
      },
    ]);
  }
  return { createdAt: parts[0] as number, runId: parts[1], key: parts[2] };
}

import type { ServerResponse } from 'node:http';

/** What a request's handler learned that the HTTP layer reports: its operation and error code. */
export interface RequestNote {
  operation: string | null;
  errorCode: string | null;
}

const notes = new WeakMap<ServerResponse, RequestNote>();

function noteOf(res: ServerResponse): RequestNote {
  let note = notes.get(res);
  if (!note) {
    note = { operation: null, errorCode: null };
    notes.set(res, note);
  }
  return note;
}

/** Records which operation answers a request (for its metrics and trace span). */
export function noteOperation(res: ServerResponse, operation: string): void {
  noteOf(res).operation = operation;
}

/** Records the error code a request was answered with. */
export function noteErrorCode(res: ServerResponse, code: string): void {
  noteOf(res).errorCode = code;
}

/** What was noted of a request; null when nothing was. */
export function readNote(res: ServerResponse): RequestNote | null {
  return notes.get(res) ?? null;
}

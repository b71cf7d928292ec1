import { AirlockError } from '../errors.js';
import type { StoreBackend } from './backend.js';
import { STORE_BACKENDS } from './backends.js';
import { StoreUnavailableError } from './store-unavailable.js';

export { StoreNewerSchemaError } from './store-newer-schema.js';
export { StoreUnavailableError } from './store-unavailable.js';

/** A command that must not create a store was pointed at a database that holds none. */
export class NotAnAirlockStoreError extends Error {
  constructor(readonly description: string) {
    super(`${description} holds no Airlock store (no airlock_migrations or workspaces table)`);
    this.name = 'NotAnAirlockStoreError';
  }
}

/** The backends of the stores open in this process, with how many of each are open. */
const openBackends = new Map<StoreBackend, number>();

/**
 * Notes a store open on `backend` until the function it answers is called:
 * while any store is open, only the open stores' backends read a failure (a
 * client's or a webhook's ECONNRESET on a SQLite kernel is not the store's).
 */
export function noteOpenBackend(backend: StoreBackend): () => void {
  openBackends.set(backend, (openBackends.get(backend) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (openBackends.get(backend) ?? 1) - 1;
    if (left > 0) openBackends.set(backend, left);
    else openBackends.delete(backend);
  };
}

/**
 * The first reason a backend gives for a driver's error (see StoreBackend), or
 * null. Asks the open stores' backends; with none open (a store that could
 * not be opened), every backend.
 */
function backendReason(
  error: unknown,
  reasonOf: (backend: StoreBackend, error: Error) => string | null,
): string | null {
  if (!(error instanceof Error)) return null;
  const asked = openBackends.size > 0 ? [...openBackends.keys()] : STORE_BACKENDS;
  for (const backend of asked) {
    const reason = reasonOf(backend, error);
    if (reason !== null) return reason;
  }
  return null;
}

/**
 * A driver's error as the client's answer: a {@link StoreUnavailableError}
 * when the store cannot take a write now, `invalid_input` when it cannot
 * keep text the request carried (the unit of work rolled back, so nothing
 * changed); otherwise the error itself.
 */
export function asStoreError(error: unknown): unknown {
  if (error instanceof AirlockError) return error;
  const reason = backendReason(error, (backend, e) => backend.unavailableReason(e));
  if (reason !== null) return new StoreUnavailableError(reason);
  const refused = backendReason(error, (backend, e) => backend.refusedTextReason(e));
  if (refused !== null) return new AirlockError('invalid_input', `${refused}; nothing was changed`);
  return error;
}

import { OPERATION_CONTRACTS } from '@airlock/core';
import { recordHookedEvent } from '../kernel/hooked-sessions.js';
import { implement } from './operation.js';

/** POST /agent_api/v1/hooks/events: one event of a coding agent's hooked session. */
export const hookEvent = implement(
  OPERATION_CONTRACTS['hooks.event'],
  ({ kernel, principal }, input) => recordHookedEvent(kernel.context, principal, input),
);

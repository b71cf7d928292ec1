import { isAirlockError } from '../errors.js';
import type { OperationsClient } from '../internal/transport.js';

/** The address of a call's row, as `runs.cancelCall` names it. */
export interface CallAddress {
  workspace_id: string;
  run_id: string;
  task_key: string;
}

/**
 * Cancels a call's row with `reason` kept on it. A reason the kernel refuses (past 4096
 * characters, holding NUL, or a kernel older than the field) is dropped and the cancel sent
 * again without it: the withdrawal matters more than its why.
 * @throws AirlockError the kernel's refusal of the cancel itself, or its failure to answer.
 */
export async function cancelCall(
  operations: OperationsClient,
  address: CallAddress,
  reason: string | undefined,
): Promise<void> {
  try {
    await operations.runs.cancelCall.mutate({ ...address, ...(reason ? { reason } : {}) });
  } catch (error) {
    if (!reason || !isAirlockError(error) || error.code !== 'invalid_input') throw error;
    await operations.runs.cancelCall.mutate(address);
  }
}

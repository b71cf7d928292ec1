import { COMMON_ERROR_CODES, type ErrorCode, type OperationContract } from '@airlock/core';
import type { z } from 'zod';
import type { Kernel } from '../kernel/kernel.js';
import type { Principal } from '../store/accounts.js';

export { pathParams } from '@airlock/core';

/** What a handler runs with: the kernel and the authenticated caller. */
export interface OperationContext {
  kernel: Kernel;
  principal: Principal;
}

/** One operation: its contract from @airlock/core and the server's handler. */
export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType>
  extends OperationContract<I, O> {
  handle(context: OperationContext, input: z.output<I>): Promise<z.input<O>>;
}

/** Binds a handler to an operation contract of @airlock/core. */
export function implement<I extends z.ZodObject, O extends z.ZodType>(
  contract: OperationContract<I, O>,
  handle: Operation<I, O>['handle'],
): Operation<I, O> {
  return { ...contract, handle };
}

/** True when an operation declares it may answer this code (its own or a common one). */
export function declaresCode(
  operation: Pick<OperationContract, 'errors'>,
  code: ErrorCode,
): boolean {
  return (
    (COMMON_ERROR_CODES as readonly ErrorCode[]).includes(code) || operation.errors.includes(code)
  );
}

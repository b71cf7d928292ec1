import type { z } from 'zod';
import type { ErrorCode } from './error-codes.js';
import type { OperationRoute } from './routes.js';
import type { CredentialKind, MemberRole } from './views.js';

/**
 * One operation of the wire, declared once: the REST route (its method,
 * path and JSON-lines field, from routes.ts), the tRPC path,
 * the OpenAPI entry and the SDK's types all come from it. The server adds
 * the handler; nothing restates the rest.
 */
export interface OperationContract<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
> extends OperationRoute {
  /** Dotted name: the tRPC path and the OpenAPI operationId. */
  readonly name: string;
  readonly summary: string;
  /** Which credential kinds may call it; any other gets 403. */
  readonly planes: readonly CredentialKind[];
  /**
   * The role a member credential needs to call it (an agent or executor
   * credential of its planes is not asked); absent: any member. Any other
   * member gets 403 `admin_required`.
   */
  readonly role?: MemberRole;
  /** HTTP status of a success; default 200. */
  readonly status?: number;
  /** What the server parses. */
  readonly input: I;
  /**
   * The input as documented, where the parse is left open on purpose so that
   * core can report every problem of a declaration at once (invalid_configuration).
   */
  readonly documented?: z.ZodObject;
  readonly output: O;
  /** The codes this operation answers beyond the common ones (see COMMON_ERROR_CODES). */
  readonly errors: readonly ErrorCode[];
  /**
   * A body this many bytes long is read even where the kernel's body limit
   * (`--body-limit`) is lower: what an agent's hook carries (a whole file it
   * writes, a tool's long output) is not the operator's to cut.
   */
  readonly bodyLimitFloor?: number;
}

/** Declares an operation contract (a typed identity, so each keeps its own types). */
export function defineContract<const C extends OperationContract>(contract: C): C {
  return contract;
}

/** What a caller sends to an operation (its documented input where there is one). */
export type OperationInput<C extends OperationContract> = C extends {
  documented: infer D extends z.ZodType;
}
  ? z.input<D>
  : z.input<C['input']>;

/** What an operation answers. */
export type OperationOutput<C extends OperationContract> = z.output<C['output']>;

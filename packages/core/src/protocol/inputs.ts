import { z } from 'zod';
import { ApprovalModeSchema } from '../schemas/approval.js';
import { ProviderConfigSchema } from './provider.js';
import { storableName } from './stored-text.js';
import { OnFailureSchema } from './views.js';

/**
 * An id (in a path, a query or a body): short text that every store keeps
 * as sent, so no NUL (PostgreSQL refuses it) and no lone surrogate (stored,
 * it would turn into U+FFFD and name another thing).
 */
export const IdSchema = storableName(
  z.string().min(1).max(200),
  'an id holds no NUL (U+0000) and no lone surrogate',
);

/**
 * The `{workspace_id}` that names the calling credential's own workspace, for
 * the operations that answer about that credential alone (`credentials.self`):
 * a client holding only a token learns who it is, and in which workspace,
 * without knowing the id first. Every other operation refuses it (403).
 */
export const OWN_WORKSPACE = '-';

/** `{workspace_id}` in a path. */
export const WorkspaceParams = { workspace_id: IdSchema };
/** `{workspace_id}/runs/{run_id}` in a path. */
export const RunParams = { workspace_id: IdSchema, run_id: IdSchema };
/** `.../runs/{run_id}/tasks/{task_key}` in a path. */
export const TaskParams = { ...RunParams, task_key: IdSchema };
/** `/executor_api/v1/runs/{run_id}/tasks/{task_key}` in a path. */
export const ExecutorTaskParams = { run_id: IdSchema, task_key: IdSchema };

/** What starts a run: the input text and the model provider. */
export const RunStartShape = {
  input: z.string().max(1_000_000).default(''),
  provider: ProviderConfigSchema,
  on_failure: OnFailureSchema.optional(),
  /** Compact the model's context once it passes this many UTF-8 bytes. */
  context_limit_bytes: z.number().int().min(256).max(1_000_000_000).optional(),
  /** Compact once the context passes this many estimated tokens (UTF-8 bytes / 4). */
  context_limit_tokens: z.number().int().min(64).max(250_000_000).optional(),
};

/** The approval mode (re-exported under the name the routes use). */
export const ModeSchema = ApprovalModeSchema;

/**
 * A page cursor of events: those after a sequence number. A number, never
 * coerced: a query string carries it as plain decimal digits, which REST
 * reads as a number before this schema checks it.
 */
export const AfterSchema = z.number().int().min(0).default(0);

/** A page size (a number, as {@link AfterSchema}). */
export const LimitSchema = z.number().int().min(1).max(1000).default(100);

/** A claim's lease in milliseconds. */
export const LeaseSchema = z.number().int().min(1000).max(86_400_000).optional();

import { z } from 'zod';
import { eachNameOnce } from '../schemas/names-once.js';
import {
  CALL_ID_MAX,
  CALL_NAME_MAX,
  GATEWAY_CLIENT_MAX,
  MODEL_ROUNDS_DEFAULT,
  MODEL_ROUNDS_MAX,
} from './kernel-limits.js';
import { keptText, storableName } from './stored-text.js';
import { OnFailureSchema } from './views.js';

/** One scripted tool call. */
export const ScriptedCallSchema = z.strictObject({
  // The bounds of a gateway call's name and id: what every store keeps and indexes alike.
  name: storableName(z.string().min(1).max(CALL_NAME_MAX)),
  input: z.unknown().optional(),
  id: storableName(z.string().max(CALL_ID_MAX)).optional(),
  on_failure: OnFailureSchema.optional(),
});

/** One scripted round: tool calls or a final answer, optionally expecting text it was fed. */
export const ScriptedRoundSchema = z.union([
  z.strictObject({
    tool_calls: z.array(ScriptedCallSchema).min(1).max(64),
    expect: z.union([z.string(), z.array(z.string())]).optional(),
  }),
  z.strictObject({
    final: keptText(z.string()),
    expect: z.union([z.string(), z.array(z.string())]).optional(),
  }),
]);
/** One scripted round. */
export type ScriptedRound = z.infer<typeof ScriptedRoundSchema>;

/** The `scripted` provider's configuration: the rounds, in order. */
export const ScriptedProviderSchema = z.strictObject({
  kind: z.literal('scripted'),
  rounds: z.array(ScriptedRoundSchema).min(1).max(256),
  /** What the scripted model answers when the kernel asks it for a compaction summary. */
  summary: keptText(z.string()).optional(),
});

/** A tool offered to an OpenAI-compatible model. */
export const OpenAIToolSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

/** The `openai` provider's configuration (the API key comes from the deployment). */
export const OpenAIProviderSchema = z.strictObject({
  kind: z.literal('openai'),
  base_url: z
    .string()
    .url()
    .optional()
    .describe(
      "the endpoint to ask; the deployment's own (OPENAI_BASE_URL) or one listed in airlock serve --model-base-urls, else refused",
    ),
  model: z.string().min(1).optional(),
  system: z.string().optional(),
  tools: z
    .array(OpenAIToolSchema)
    .max(128)
    // The model would be sent every definition while the kernel's offered-names check counts
    // one name: which one the model follows would be nobody's choice.
    .superRefine(eachNameOnce('the provider offers'))
    .optional()
    .describe('the tools offered to the model; each name once'),
  max_rounds: z
    .number()
    .int()
    .min(1)
    .max(MODEL_ROUNDS_MAX)
    .optional()
    .describe(
      `the most rounds of tool calls the model may ask for (default ${MODEL_ROUNDS_DEFAULT}); a model asking for more ends the run failed max_rounds_exceeded`,
    ),
});

/**
 * The `gateway` provider's configuration: the model is a client outside the
 * kernel (an MCP client behind `airlock gateway mcp`) that plants its calls
 * through `runs.calls`.
 */
export const GatewayProviderSchema = z.strictObject({
  kind: z.literal('gateway'),
  /** Who the client is, for the operator (such as the MCP client's name and version). */
  client: z.string().max(GATEWAY_CLIENT_MAX).optional(),
});

/** A run's provider configuration. */
export const ProviderConfigSchema = z.discriminatedUnion('kind', [
  ScriptedProviderSchema,
  OpenAIProviderSchema,
  GatewayProviderSchema,
]);
/** A run's provider configuration. */
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

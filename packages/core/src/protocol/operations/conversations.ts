import { z } from 'zod';
import { IdSchema, ModeSchema, RunStartShape } from '../inputs.js';
import { defineContract } from '../operation.js';
import { operationRoute } from '../routes.js';
import { storableName } from '../stored-text.js';
import { RunViewSchema } from '../views.js';

/** POST /agent_api/v1/conversations */
export const createConversationContract = defineContract({
  ...operationRoute('conversations.create'),
  summary: 'Open a conversation of the calling agent application',
  planes: ['agent'],
  status: 201,
  input: z.strictObject({}),
  output: z.object({ id: z.string(), created_at: z.number().int() }),
  errors: [],
});

/** POST /agent_api/v1/conversations/{conversation}/inputs: a run-backed turn. */
export const postInputContract = defineContract({
  ...operationRoute('conversations.input'),
  summary: "Start a turn: a run frozen on the profile's configuration, narrowed by tightening",
  planes: ['agent'],
  status: 201,
  input: z.strictObject({
    conversation_id: IdSchema,
    ...RunStartShape,
    approval_mode: ModeSchema.optional(),
    tool_names: z.array(storableName(z.string().min(1))).optional(),
  }),
  output: RunViewSchema,
  errors: [
    'conversation_not_found',
    'no_profile_configuration',
    'tightening_widens',
    'invalid_configuration',
  ],
});

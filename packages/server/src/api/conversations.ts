import { z } from 'zod';
import { AirlockError } from '../kernel/errors.js';
import { startTurn } from '../kernel/runs.js';
import { RunViewSchema } from '../kernel/views.js';
import { newId } from '../store/ids.js';
import { defineOperation } from './operation.js';
import { settleFirstSteps } from './runs.js';
import { IdSchema, ModeSchema, RunStartShape } from './schemas.js';

/** POST /agent_api/v1/conversations */
export const createConversation = defineOperation({
  name: 'conversations.create',
  summary: 'Open a conversation of the calling agent application',
  method: 'POST',
  path: '/agent_api/v1/conversations',
  planes: ['agent'],
  status: 201,
  input: z.strictObject({}),
  output: z.object({ id: z.string(), created_at: z.number().int() }),
  async handle({ kernel, principal }) {
    if (!principal.agent_application_id) {
      throw new AirlockError('forbidden', 'this credential belongs to no agent application');
    }
    const conversation = {
      id: newId('conv'),
      workspace_id: principal.workspace_id,
      agent_application_id: principal.agent_application_id,
      created_at: kernel.context.store.now(),
    };
    await kernel.context.store.db.insertInto('conversations').values(conversation).execute();
    return { id: conversation.id, created_at: conversation.created_at };
  },
});

/** POST /agent_api/v1/conversations/{conversation}/inputs: a run-backed turn. */
export const postInput = defineOperation({
  name: 'conversations.input',
  summary: "Start a turn: a run frozen on the profile's configuration, narrowed by tightening",
  method: 'POST',
  path: '/agent_api/v1/conversations/{conversation_id}/inputs',
  planes: ['agent'],
  status: 201,
  input: z.strictObject({
    conversation_id: IdSchema,
    ...RunStartShape,
    approval_mode: ModeSchema.optional(),
    tool_names: z.array(z.string().min(1)).optional(),
  }),
  output: RunViewSchema,
  async handle({ kernel, principal }, input) {
    const run = await startTurn(kernel.context, principal, input);
    return settleFirstSteps(kernel, run);
  },
});

import { OPERATION_CONTRACTS } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { startTurn } from '../kernel/verbs/runs.js';
import { insertConversation } from '../store/conversations.js';
import { newId } from '../store/ids.js';
import { implement } from './operation.js';
import { settleFirstSteps } from './runs.js';

/** POST /agent_api/v1/conversations */
export const createConversation = implement(
  OPERATION_CONTRACTS['conversations.create'],
  async ({ kernel, principal }) => {
    if (!principal.agent_application_id) {
      throw new AirlockError('forbidden', 'this credential belongs to no agent application');
    }
    const conversation = {
      id: newId('conv'),
      workspace_id: principal.workspace_id,
      agent_application_id: principal.agent_application_id,
      created_at: kernel.context.store.now(),
    };
    await insertConversation(kernel.context.store, conversation);
    return { id: conversation.id, created_at: conversation.created_at };
  },
);

/** POST /agent_api/v1/conversations/{conversation}/inputs: a run-backed turn. */
export const postInput = implement(
  OPERATION_CONTRACTS['conversations.input'],
  async ({ kernel, principal }, input) => {
    const run = await startTurn(kernel.context, principal, input);
    return settleFirstSteps(kernel, run);
  },
);

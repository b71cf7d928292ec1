import {
  createCredentialOperation,
  removeAgentApplicationOperation,
  revokeCredentialOperation,
} from './accounts.js';
import { exportAudit, runAudit } from './audit.js';
import { createConversation, postInput } from './conversations.js';
import { approve, deny, listDecisions, resolution, retry } from './decisions.js';
import { claim, claimNextOperation, commit, heartbeatOperation, inbox } from './executor.js';
import type { Operation } from './operation.js';
import { getConfiguration, putConfiguration } from './profile.js';
import {
  abandonRun,
  createRun,
  getRun,
  listEvents,
  listRuns,
  regenerateTurn,
  stopRunOperation,
} from './runs.js';
import { appendTask, getTask, listTasks } from './tasks.js';

/** Every operation the server serves, in the order the OpenAPI document lists them. */
export const OPERATIONS: readonly Operation[] = [
  putConfiguration,
  getConfiguration,
  createConversation,
  postInput,
  regenerateTurn,
  createRun,
  listRuns,
  getRun,
  stopRunOperation,
  abandonRun,
  listEvents,
  runAudit,
  exportAudit,
  listTasks,
  getTask,
  appendTask,
  approve,
  deny,
  resolution,
  retry,
  listDecisions,
  inbox,
  claim,
  claimNextOperation,
  heartbeatOperation,
  commit,
  createCredentialOperation,
  revokeCredentialOperation,
  removeAgentApplicationOperation,
] as unknown as readonly Operation[];

import { OPERATION_CONTRACTS, type OperationContracts, type OperationName } from '@airlock/core';
import {
  createAgentApplicationOperation,
  createCredentialOperation,
  labelCredentialOperation,
  listAgentApplicationsOperation,
  listCredentialsOperation,
  removeAgentApplicationOperation,
  revokeCredentialOperation,
  selfCredentialOperation,
} from './accounts.js';
import { getApprovalPolicy, replaceApprovalPolicy } from './approval-policy.js';
import { exportAudit, runAudit } from './audit.js';
import { createConversation, postInput } from './conversations.js';
import { approve, deny, listDecisions, resolution, retry } from './decisions.js';
import {
  claim,
  claimNextOperation,
  commit,
  heartbeatOperation,
  inbox,
  release,
} from './executor.js';
import { cancelCall, submitCalls } from './gateway.js';
import { claudeCodeHook, codexHook, geminiHook, hookEvent } from './hooks.js';
import { listNotifications, redeliverNotification } from './notifications.js';
import type { Operation } from './operation.js';
import { getOverlay, replaceOverlayOperation, trustOverlayOperation } from './overlays.js';
import { getConfiguration, putConfiguration } from './profile.js';
import { getRetention, putRetention } from './retention.js';
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

type Implementations = {
  [K in OperationName]: Operation<OperationContracts[K]['input'], OperationContracts[K]['output']>;
};

// Keyed by the contract names: a contract without a handler is a compile error.
const IMPLEMENTATIONS: Implementations = {
  'profile.put': putConfiguration,
  'profile.get': getConfiguration,
  'conversations.create': createConversation,
  'conversations.input': postInput,
  'runs.regenerate': regenerateTurn,
  'runs.create': createRun,
  'runs.list': listRuns,
  'runs.get': getRun,
  'runs.stop': stopRunOperation,
  'runs.abandon': abandonRun,
  'runs.calls': submitCalls,
  'hooks.event': hookEvent,
  'hooks.claudeCode': claudeCodeHook,
  'hooks.codex': codexHook,
  'hooks.gemini': geminiHook,
  'runs.cancelCall': cancelCall,
  'runs.events': listEvents,
  'audit.run': runAudit,
  'audit.export': exportAudit,
  'retention.get': getRetention,
  'retention.put': putRetention,
  'tasks.list': listTasks,
  'tasks.get': getTask,
  'tasks.append': appendTask,
  'decisions.approve': approve,
  'decisions.deny': deny,
  'decisions.resolve': resolution,
  'decisions.retry': retry,
  'decisions.list': listDecisions,
  'notifications.list': listNotifications,
  'notifications.redeliver': redeliverNotification,
  'approvalPolicy.get': getApprovalPolicy,
  'approvalPolicy.replace': replaceApprovalPolicy,
  'overlays.get': getOverlay,
  'overlays.replace': replaceOverlayOperation,
  'overlays.trust': trustOverlayOperation,
  'executor.inbox': inbox,
  'executor.claim': claim,
  'executor.claimNext': claimNextOperation,
  'executor.heartbeat': heartbeatOperation,
  'executor.commit': commit,
  'executor.release': release,
  'credentials.create': createCredentialOperation,
  'credentials.list': listCredentialsOperation,
  'credentials.self': selfCredentialOperation,
  'credentials.revoke': revokeCredentialOperation,
  'credentials.label': labelCredentialOperation,
  'agentApplications.create': createAgentApplicationOperation,
  'agentApplications.list': listAgentApplicationsOperation,
  'agentApplications.remove': removeAgentApplicationOperation,
};

/**
 * Every operation the server serves, in the contracts' order: the one registry
 * REST, tRPC and the OpenAPI document are built from.
 */
export const OPERATIONS: readonly Operation[] = (
  Object.keys(OPERATION_CONTRACTS) as OperationName[]
).map((name) => {
  const operation = IMPLEMENTATIONS[name] as unknown as Operation;
  if (operation.name !== name) throw new Error(`operation ${name} is bound to ${operation.name}`);
  return operation;
});

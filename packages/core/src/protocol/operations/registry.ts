import {
  createAgentApplicationContract,
  createCredentialContract,
  labelCredentialContract,
  listAgentApplicationsContract,
  listCredentialsContract,
  removeAgentApplicationContract,
  revokeCredentialContract,
  selfCredentialContract,
} from './accounts.js';
import { getApprovalPolicyContract, replaceApprovalPolicyContract } from './approval-policy.js';
import { exportAuditContract, runAuditContract } from './audit.js';
import { createConversationContract, postInputContract } from './conversations.js';
import {
  approveContract,
  denyContract,
  listDecisionsContract,
  resolveContract,
  retryContract,
} from './decisions.js';
import {
  claimContract,
  claimNextContract,
  commitContract,
  heartbeatContract,
  inboxContract,
} from './executor.js';
import { cancelCallContract, submitCallsContract } from './gateway.js';
import {
  claudeCodeHookContract,
  codexHookContract,
  geminiHookContract,
  hookEventContract,
} from './hooks.js';
import { listDeliveriesContract, redeliverContract } from './notifications.js';
import { getOverlayContract, replaceOverlayContract, trustOverlayContract } from './overlays.js';
import { getConfigurationContract, putConfigurationContract } from './profile.js';
import { getRetentionContract, putRetentionContract } from './retention.js';
import {
  abandonRunContract,
  createRunContract,
  getRunContract,
  listEventsContract,
  listRunsContract,
  regenerateTurnContract,
  stopRunContract,
} from './runs.js';
import { appendTaskContract, getTaskContract, listTasksContract } from './tasks.js';

/**
 * Every operation of the wire by its dotted name, in the order the OpenAPI
 * document lists them. The server must implement exactly these.
 */
export const OPERATION_CONTRACTS = {
  'profile.put': putConfigurationContract,
  'profile.get': getConfigurationContract,
  'conversations.create': createConversationContract,
  'conversations.input': postInputContract,
  'runs.regenerate': regenerateTurnContract,
  'runs.create': createRunContract,
  'runs.list': listRunsContract,
  'runs.get': getRunContract,
  'runs.stop': stopRunContract,
  'runs.abandon': abandonRunContract,
  'runs.calls': submitCallsContract,
  'runs.cancelCall': cancelCallContract,
  'hooks.event': hookEventContract,
  'hooks.claudeCode': claudeCodeHookContract,
  'hooks.codex': codexHookContract,
  'hooks.gemini': geminiHookContract,
  'runs.events': listEventsContract,
  'audit.run': runAuditContract,
  'audit.export': exportAuditContract,
  'retention.get': getRetentionContract,
  'retention.put': putRetentionContract,
  'tasks.list': listTasksContract,
  'tasks.get': getTaskContract,
  'tasks.append': appendTaskContract,
  'decisions.approve': approveContract,
  'decisions.deny': denyContract,
  'decisions.resolve': resolveContract,
  'decisions.retry': retryContract,
  'decisions.list': listDecisionsContract,
  'notifications.list': listDeliveriesContract,
  'notifications.redeliver': redeliverContract,
  'approvalPolicy.get': getApprovalPolicyContract,
  'approvalPolicy.replace': replaceApprovalPolicyContract,
  'overlays.get': getOverlayContract,
  'overlays.replace': replaceOverlayContract,
  'overlays.trust': trustOverlayContract,
  'executor.inbox': inboxContract,
  'executor.claim': claimContract,
  'executor.claimNext': claimNextContract,
  'executor.heartbeat': heartbeatContract,
  'executor.commit': commitContract,
  'credentials.create': createCredentialContract,
  'credentials.list': listCredentialsContract,
  'credentials.self': selfCredentialContract,
  'credentials.revoke': revokeCredentialContract,
  'credentials.label': labelCredentialContract,
  'agentApplications.create': createAgentApplicationContract,
  'agentApplications.list': listAgentApplicationsContract,
  'agentApplications.remove': removeAgentApplicationContract,
} as const;

/** The contracts by name. */
export type OperationContracts = typeof OPERATION_CONTRACTS;

/** A dotted operation name, such as `decisions.approve`. */
export type OperationName = keyof OperationContracts;

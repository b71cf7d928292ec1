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
  releaseContract,
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
 * The contracts by name. Written out with `typeof` each (not inferred from the object below),
 * so the published declarations name each contract instead of repeating its whole schema type:
 * inferred, registry.d.ts was 390 KB of the SDK's install.
 */
export interface OperationContracts {
  readonly 'profile.put': typeof putConfigurationContract;
  readonly 'profile.get': typeof getConfigurationContract;
  readonly 'conversations.create': typeof createConversationContract;
  readonly 'conversations.input': typeof postInputContract;
  readonly 'runs.regenerate': typeof regenerateTurnContract;
  readonly 'runs.create': typeof createRunContract;
  readonly 'runs.list': typeof listRunsContract;
  readonly 'runs.get': typeof getRunContract;
  readonly 'runs.stop': typeof stopRunContract;
  readonly 'runs.abandon': typeof abandonRunContract;
  readonly 'runs.calls': typeof submitCallsContract;
  readonly 'runs.cancelCall': typeof cancelCallContract;
  readonly 'hooks.event': typeof hookEventContract;
  readonly 'hooks.claudeCode': typeof claudeCodeHookContract;
  readonly 'hooks.codex': typeof codexHookContract;
  readonly 'hooks.gemini': typeof geminiHookContract;
  readonly 'runs.events': typeof listEventsContract;
  readonly 'audit.run': typeof runAuditContract;
  readonly 'audit.export': typeof exportAuditContract;
  readonly 'retention.get': typeof getRetentionContract;
  readonly 'retention.put': typeof putRetentionContract;
  readonly 'tasks.list': typeof listTasksContract;
  readonly 'tasks.get': typeof getTaskContract;
  readonly 'tasks.append': typeof appendTaskContract;
  readonly 'decisions.approve': typeof approveContract;
  readonly 'decisions.deny': typeof denyContract;
  readonly 'decisions.resolve': typeof resolveContract;
  readonly 'decisions.retry': typeof retryContract;
  readonly 'decisions.list': typeof listDecisionsContract;
  readonly 'notifications.list': typeof listDeliveriesContract;
  readonly 'notifications.redeliver': typeof redeliverContract;
  readonly 'approvalPolicy.get': typeof getApprovalPolicyContract;
  readonly 'approvalPolicy.replace': typeof replaceApprovalPolicyContract;
  readonly 'overlays.get': typeof getOverlayContract;
  readonly 'overlays.replace': typeof replaceOverlayContract;
  readonly 'overlays.trust': typeof trustOverlayContract;
  readonly 'executor.inbox': typeof inboxContract;
  readonly 'executor.claim': typeof claimContract;
  readonly 'executor.claimNext': typeof claimNextContract;
  readonly 'executor.heartbeat': typeof heartbeatContract;
  readonly 'executor.commit': typeof commitContract;
  readonly 'executor.release': typeof releaseContract;
  readonly 'credentials.create': typeof createCredentialContract;
  readonly 'credentials.list': typeof listCredentialsContract;
  readonly 'credentials.self': typeof selfCredentialContract;
  readonly 'credentials.revoke': typeof revokeCredentialContract;
  readonly 'credentials.label': typeof labelCredentialContract;
  readonly 'agentApplications.create': typeof createAgentApplicationContract;
  readonly 'agentApplications.list': typeof listAgentApplicationsContract;
  readonly 'agentApplications.remove': typeof removeAgentApplicationContract;
}

/**
 * Every operation of the wire by its dotted name, in the order the OpenAPI
 * document lists them. The server must implement exactly these.
 */
export const OPERATION_CONTRACTS: OperationContracts = {
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
  'executor.release': releaseContract,
  'credentials.create': createCredentialContract,
  'credentials.list': listCredentialsContract,
  'credentials.self': selfCredentialContract,
  'credentials.revoke': revokeCredentialContract,
  'credentials.label': labelCredentialContract,
  'agentApplications.create': createAgentApplicationContract,
  'agentApplications.list': listAgentApplicationsContract,
  'agentApplications.remove': removeAgentApplicationContract,
};

/** A dotted operation name, such as `decisions.approve`. */
export type OperationName = keyof OperationContracts;

export { claudeCode } from './agents/claude-code.js';
export { codex } from './agents/codex.js';
export { gemini } from './agents/gemini.js';
export { AGENT_PROTOCOLS, protocolOf, toolCheckAgentOf } from './agents/registry.js';
export type {
  AgentOutput,
  AgentProtocol,
  KernelAnswer,
  NeutralEvent,
  Reply,
} from './agents/types.js';
export { main } from './cli.js';
export { defaultConfigPath, type HookConfig, readHookConfig } from './client/config.js';
export { type DecideOptions, decide, failClosed, waitingReason } from './client/decide.js';
export { type KernelTarget, KernelUnavailable, sendEvent } from './client/kernel-call.js';
export { type RunHookOptions, runHook } from './client/run-hook.js';
export {
  type UnreadPayload,
  unreadNote,
  unreadPayloadEvent,
} from './client/unread-payload.js';
export { DEFAULT_WAIT_MS, HOOK_TIMEOUT_SECONDS } from './client/wait-limits.js';
export {
  type DoctorCheck,
  type DoctorOptions,
  doctor,
  SUPPORTED_VERSIONS,
} from './install/doctor.js';
export { HOOK_ENTRIES, type HookEntry } from './install/entries.js';
export {
  hookCommand,
  hookEntryPath,
  type InstallOptions,
  type InstallResult,
  installHooks,
  type UninstallResult,
  uninstallHooks,
} from './install/install.js';
export { backupPath, type InstallScope, settingsPath } from './install/targets.js';
export { defaultProfile } from './manifests/default-profiles.js';
export { SHELL_TOOL, TOOL_MANIFESTS } from './manifests/tool-manifests.js';

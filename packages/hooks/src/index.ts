export { claudeCode } from './agents/claude-code.js';
export { codex } from './agents/codex.js';
export { gemini } from './agents/gemini.js';
export { AGENT_PROTOCOLS, protocolOf } from './agents/registry.js';
export type {
  AgentOutput,
  AgentProtocol,
  KernelAnswer,
  NeutralEvent,
  Reply,
} from './agents/types.js';
export {
  DEFAULT_WAIT_MS,
  defaultConfigPath,
  type HookConfig,
  readHookConfig,
} from './client/config.js';
export { type DecideOptions, decide, failClosed, waitingReason } from './client/decide.js';
export { type KernelTarget, KernelUnavailable, sendEvent } from './client/kernel-call.js';
export { type RunHookOptions, runHook } from './client/run-hook.js';

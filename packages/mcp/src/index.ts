export {
  type BridgedTool,
  type ExecutorBridge,
  type ExecutorBridgeOptions,
  resultText,
  startExecutorBridge,
} from './executor-bridge.js';
export { isKernelError, type KernelAddress, KernelApi, KernelError } from './kernel-api.js';
export {
  type ManifestTarget,
  manifestEntries,
  NAME_SEPARATOR,
  prefixedName,
  RISK_TRAITS,
  type RiskTrait,
  riskTraitsOf,
  type ToolManifestEntry,
  targetsOf,
} from './manifest.js';
export { CLIENT_INFO, McpServerConnection } from './mcp-connection.js';
export {
  type ProfileConfiguration,
  REGISTER_TOOL_MANIFEST,
  registerServerTools,
} from './profile-registration.js';
export {
  commandLineServer,
  type NamedServer,
  parseServersFile,
  readServersFile,
  type ServerSpec,
  ServersConfigError,
} from './servers-config.js';

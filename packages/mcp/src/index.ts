export {
  type BridgedTool,
  type BridgeTakeOptions,
  EXECUTOR_TOOLS_MAX,
  type ExecutorBridge,
  type ExecutorBridgeOptions,
  type ProgressListener,
  resultText,
  startExecutorBridge,
} from './executor-bridge.js';
export type { CallRequest, WaitingListener } from './gateway/call-request.js';
export { credentialKind, type MemberRunPolicy } from './gateway/client-credential.js';
export {
  type Gateway,
  type GatewayOptions,
  type HttpListenOptions,
  startGateway,
} from './gateway/gateway.js';
export {
  createGatewayServer,
  GATEWAY_INFO,
  type GatewayServer,
  listedTools,
} from './gateway/gateway-server.js';
export { GatewaySession, type GatewaySessionOptions } from './gateway/gateway-session.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CREDENTIAL,
  DEFAULT_SESSION_IDLE_MS,
  type HttpGateway,
  type HttpGatewayOptions,
  listenHttp,
  MCP_PATH,
} from './gateway/http-transport.js';
export {
  ARGUMENT_DEPTH_LIMIT,
  callParamsProblem,
  connectGuarded,
} from './gateway/request-guard.js';
export {
  GatewayStdioTransport,
  STDIO_LINE_LIMIT,
  type StdioEnd,
} from './gateway/stdio-transport.js';
export { SETTLED_STATES, toolResultOf } from './gateway/tool-results.js';
export { hasErrorCode, type KernelAddress, KernelApi } from './kernel-api.js';
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
  type Registration,
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

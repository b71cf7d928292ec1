import type { ModelProvider, ProviderRound } from './types.js';
import { ProviderError } from './types.js';

/**
 * The gateway provider: the model is a client outside the kernel (an MCP
 * client behind `airlock gateway mcp`). The kernel never asks it for a round;
 * the client plants each round through the `runs.calls` verb, which crosses
 * the same approval stage as any other model row.
 */
export class GatewayProvider implements ModelProvider {
  readonly external = true;

  /** Never called by the loop; a direct call is a kernel bug, reported as a provider failure. */
  async nextRound(): Promise<ProviderRound> {
    throw new ProviderError(
      'provider_external',
      'a gateway run gets its rounds from its client (runs.calls), never from the kernel',
    );
  }
}

import { type Gateway, startGateway } from '@airlock/mcp';
import type { TestKernel } from '../support/kernel.js';
import { slowServer } from './servers.js';

/**
 * A gateway in front of the slow test server on a test kernel, as the
 * cancellation and stopped-run tests use it: members' calls granted
 * (`bypass`), rows read again every 50 ms.
 */
export function startSlowGateway(kernel: TestKernel): Promise<Gateway> {
  return startGateway({
    url: kernel.url,
    workspaceId: kernel.workspace.id,
    executorToken: kernel.workspace.tokens.executor,
    servers: [slowServer()],
    memberPolicy: { approval_mode: 'bypass', approval_rules: [] },
    pollMs: 50,
  });
}

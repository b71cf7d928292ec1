import { rmSync } from 'node:fs';
import { type Gateway, type GatewayOptions, type HttpGateway, startGateway } from '@airlock/mcp';
import { afterAll, beforeAll } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

/** What {@link useHttpGateway} starts: read its fields inside tests and hooks, once started. */
export interface HttpGatewayFixture {
  kernel: TestKernel;
  gateway: Gateway;
  front: HttpGateway;
  /** The work folder the filesystem server serves. */
  dir: string;
}

/**
 * A kernel, a gateway bridging the filesystem server over a fresh work folder, and its HTTP
 * front, started before a file's tests and stopped after them.
 */
export function useHttpGateway(
  options: {
    /** Gateway options besides the kernel, its credentials and the server. */
    gateway?: Partial<GatewayOptions>;
    /** How the HTTP front listens. */
    listen?: Parameters<Gateway['listenHttp']>[0];
    /** Runs once the kernel is up, before the gateway starts (a profile to set, say). */
    beforeGateway?: (kernel: TestKernel) => Promise<void>;
  } = {},
): HttpGatewayFixture {
  const fixture = {} as HttpGatewayFixture;
  beforeAll(async () => {
    fixture.kernel = await startTestKernel();
    fixture.dir = workFolder();
    await options.beforeGateway?.(fixture.kernel);
    fixture.gateway = await startGateway({
      url: fixture.kernel.url,
      workspaceId: fixture.kernel.workspace.id,
      executorToken: fixture.kernel.workspace.tokens.executor,
      servers: [filesystemServer(fixture.dir)],
      ...options.gateway,
    });
    fixture.front = await fixture.gateway.listenHttp(options.listen);
  });
  afterAll(async () => {
    await fixture.gateway?.close();
    await fixture.kernel?.close();
    if (fixture.dir) rmSync(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}

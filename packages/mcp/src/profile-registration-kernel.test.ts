import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestEntries, type ToolManifestEntry } from './manifest.js';
import {
  type ProfileConfiguration,
  REGISTRATION_ATTEMPTS,
  registerTools,
} from './profile-registration.js';

const PROFILE = '/agent_api/v1/profile/configuration';

/** Who a token of the stand-in kernel is. */
interface Credential {
  kind: 'agent' | 'executor' | 'member';
  app: string | null;
  workspace: string;
}

/**
 * A stand-in kernel answering the reads and the write a registration makes,
 * with the kernel's versioning of the profile (`expected_version`, 409
 * `stale_digest`). `heldReads`: the first that many profile reads are answered
 * only once all of them arrived, so their writers read the same version.
 * `onRead`: runs after each profile read is answered (another writer, say).
 */
class StandInKernel {
  version = 1;
  configuration: ProfileConfiguration = { approval_mode: 'ask', tool_names: ['bash'] };
  puts = 0;
  private held: (() => void)[] = [];
  private server: Server | undefined;
  url = '';

  constructor(
    private readonly credentials: Record<string, Credential>,
    private readonly options: { heldReads?: number; onRead?: () => void } = {},
  ) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      void this.answer(request, response);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    const who = this.credentials[token];
    if (!who) return send(401, { error: { code: 'unauthenticated', detail: 'unknown token' } });
    const path = new URL(request.url ?? '/', this.url).pathname;
    const self = /^\/api\/v1\/workspaces\/([^/]+)\/credentials\/self$/.exec(path);
    if (self) {
      // `-` names the credential's own workspace, as the kernel reads it.
      if (self[1] !== who.workspace && self[1] !== '-') {
        return send(403, {
          error: { code: 'forbidden', detail: 'this credential belongs to another workspace' },
        });
      }
      return send(200, {
        credential_id: token,
        kind: who.kind,
        agent_application_id: who.app,
        role: null,
        principal: `${who.kind}:${token}`,
      });
    }
    if (path === '/executor_api/v1/inbox') return send(200, { tasks: [] });
    if (path === PROFILE && request.method === 'GET') {
      const read = { version: this.version, configuration: this.configuration, created_at: 1 };
      await this.holdRead();
      send(200, read);
      this.options.onRead?.();
      return;
    }
    if (path === PROFILE && request.method === 'PUT') {
      let text = '';
      for await (const chunk of request) text += chunk;
      const { expected_version, ...configuration } = JSON.parse(text) as ProfileConfiguration;
      this.puts += 1;
      if (expected_version !== undefined && expected_version !== this.version) {
        return send(409, { error: { code: 'stale_digest', detail: 'read it again' } });
      }
      this.version += 1;
      this.configuration = configuration;
      return send(200, { version: this.version, configuration, created_at: 1 });
    }
    send(404, { error: { code: 'not_found', detail: path } });
  }

  private holdRead(): Promise<void> {
    const heldReads = this.options.heldReads ?? 0;
    if (heldReads === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.held.push(resolve);
      if (this.held.length === heldReads) {
        for (const release of this.held) release();
        this.options.heldReads = 0;
      }
    });
  }
}

const tools = (server: string): Map<string, ToolManifestEntry[]> =>
  new Map([[server, manifestEntries(server, [{ name: 't', inputSchema: { type: 'object' } }])]]);

const ONE_APP: Record<string, Credential> = {
  agent: { kind: 'agent', app: 'app_a', workspace: 'ws_1' },
  executor: { kind: 'executor', app: 'app_a', workspace: 'ws_1' },
  'executor-b': { kind: 'executor', app: 'app_b', workspace: 'ws_1' },
  'executor-any': { kind: 'executor', app: null, workspace: 'ws_1' },
  'agent-elsewhere': { kind: 'agent', app: 'app_c', workspace: 'ws_2' },
};

describe('registering tools against a kernel that versions the profile', () => {
  let kernel: StandInKernel;
  afterEach(async () => {
    await kernel?.close();
  });

  it('keeps both bridges tools when two register from the same version at once', async () => {
    kernel = await new StandInKernel(ONE_APP, { heldReads: 2 }).start();
    const options = { url: kernel.url, executorToken: 'executor', agentToken: 'agent' };
    const [alpha, beta] = await Promise.all([
      registerTools(options, tools('alpha')),
      registerTools(options, tools('beta')),
    ]);
    expect([alpha.registration, beta.registration]).toEqual(['registered', 'registered']);
    expect([alpha.version, beta.version].sort()).toEqual([2, 3]);
    expect(kernel.configuration.tool_names).toEqual(
      expect.arrayContaining(['bash', 'alpha__t', 'beta__t']),
    );
    expect(
      (kernel.configuration.tool_manifest as { name: string }[]).map((e) => e.name).sort(),
    ).toEqual(['alpha__t', 'beta__t']);
  });

  it('keeps the tools of each of 12 bridges registering at once', async () => {
    // Each refusal is another bridge's write landing: 12 need up to 12 attempts each.
    const count = 12;
    kernel = await new StandInKernel(ONE_APP, { heldReads: count }).start();
    const options = { url: kernel.url, executorToken: 'executor', agentToken: 'agent' };
    const results = await Promise.allSettled(
      Array.from({ length: count }, (_, i) => registerTools(options, tools(`s${i}`))),
    );
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(kernel.version).toBe(1 + count);
  });

  it('says when it left the manifest out of a profile that selects a rule set', async () => {
    kernel = await new StandInKernel(ONE_APP).start();
    kernel.configuration = { approval_mode: 'rules', permission_rule_set: 'autonomous' };
    const options = { url: kernel.url, executorToken: 'executor', agentToken: 'agent' };
    expect(await registerTools(options, tools('fs'))).toEqual({
      registration: 'unchanged',
      version: null,
      manifestLeftOut: true,
    });
    expect(kernel.puts).toBe(0);
    kernel.configuration = { ...kernel.configuration, tool_manifest: [] };
    expect((await registerTools(options, tools('fs'))).manifestLeftOut).toBe(false);
  });

  it('gives up with stale_digest when other writers keep coming first, within a bound', async () => {
    kernel = await new StandInKernel(ONE_APP, {
      onRead: () => {
        kernel.version += 1;
      },
    }).start();
    await expect(
      registerTools(
        { url: kernel.url, executorToken: 'executor', agentToken: 'agent' },
        tools('fs'),
      ),
    ).rejects.toMatchObject({ code: 'stale_digest' });
    expect(kernel.puts).toBe(REGISTRATION_ATTEMPTS);
  });
});

describe('registering tools with an agent and an executor credential of different applications', () => {
  let kernel: StandInKernel;
  afterEach(async () => {
    await kernel?.close();
  });
  const register = (executorToken: string, agentToken = 'agent') =>
    registerTools({ url: kernel.url, executorToken, agentToken, workspaceId: 'ws_1' }, tools('fs'));

  it('registers when both are of one application', async () => {
    kernel = await new StandInKernel(ONE_APP).start();
    expect((await register('executor')).registration).toBe('registered');
  });

  it('refuses an executor of another application, naming both, and writes nothing', async () => {
    kernel = await new StandInKernel(ONE_APP).start();
    await expect(register('executor-b')).rejects.toThrow(
      /agent credential is of application app_a and the executor credential of application app_b/,
    );
    expect(kernel.puts).toBe(0);
  });

  it('refuses an executor of no application, which serves every application', async () => {
    kernel = await new StandInKernel(ONE_APP).start();
    await expect(register('executor-any')).rejects.toThrow(/of no application/);
    expect(kernel.puts).toBe(0);
  });

  it('says which credential is of another workspace', async () => {
    kernel = await new StandInKernel(ONE_APP).start();
    await expect(register('executor', 'agent-elsewhere')).rejects.toThrow(
      /^the agent credential: this credential belongs to another workspace/,
    );
    expect(kernel.puts).toBe(0);
  });

  it('refuses two credentials of the wrong kinds for their places', async () => {
    kernel = await new StandInKernel(ONE_APP).start();
    await expect(register('agent', 'executor')).rejects.toThrow(
      /executor credential is a credential of kind agent/,
    );
    expect(kernel.puts).toBe(0);
  });
});

import { type Approval, createClient, type TaskView } from '@airlock/sdk';
import { MockLanguageModelV3 } from 'ai/test';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';

/**
 * The profile every framework test declares: `lookup` granted, `delete_file`
 * refused with a reason, `send_email` parked; a spec-004 contract whose
 * `requires_user` parks network shell commands.
 */
export const FRAMEWORK_PROFILE = {
  approval_mode: 'rules',
  approval_rules: [
    { tool: 'lookup|bash', verdict: 'allow' },
    { tool: 'delete_file', verdict: 'deny', reason: 'no deletes in this workspace' },
    { tool: 'send_email', verdict: 'ask' },
  ],
  action_contract: {
    contract_version: 1,
    authorization: { requires_user: ['action:network'] },
  },
};

/** Spec 003's read_only rule set over a manifest: `lookup` reads, `delete_file` deletes. */
export const READ_ONLY_PROFILE = {
  approval_mode: 'bypass',
  permission_rule_set: 'read_only',
  tool_manifest: [
    { name: 'lookup', input_schema: { type: 'object' }, risk_traits: ['read'] },
    { name: 'delete_file', input_schema: { type: 'object' }, risk_traits: ['delete'] },
  ],
};

/** A real kernel on loopback, its agent profile declared, and a member's hands. */
export interface FrameworkKernel {
  kernel: TestKernel;
  /** What an adapter needs: the kernel and the application's agent credential. */
  connection: { url: string; token: string };
  /** Waits for the parked call of a tool and returns it as the member sees it. */
  parked(toolName: string): Promise<Approval>;
  /** Every row of a run. */
  tasks(runId: string): Promise<TaskView[]>;
  close(): Promise<void>;
}

/**
 * Declares the agent application's profile (`PUT /agent_api/v1/profile/configuration`).
 * @throws Error when the kernel refuses it.
 */
export async function declareProfile(
  connection: { url: string; token: string },
  profile: Record<string, unknown> = FRAMEWORK_PROFILE,
): Promise<void> {
  const declared = await fetch(`${connection.url}/agent_api/v1/profile/configuration`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${connection.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(profile),
  });
  if (!declared.ok) throw new Error(`profile refused: ${await declared.text()}`);
}

/** Starts a kernel and declares a profile for its agent application. */
export async function startFrameworkKernel(
  profile: Record<string, unknown> = FRAMEWORK_PROFILE,
  options: Parameters<typeof startTestKernel>[0] = {},
): Promise<FrameworkKernel> {
  const kernel = await startTestKernel(options);
  const agent = kernel.workspace.tokens.agent;
  await declareProfile({ url: kernel.url, token: agent }, profile);
  const workspace = createClient({
    url: kernel.url,
    token: kernel.workspace.tokens.member,
  }).workspace(kernel.workspace.id);
  return {
    kernel,
    connection: { url: kernel.url, token: agent },
    parked: (toolName) =>
      eventually(
        async () => {
          const decisions = await workspace.decisions.list();
          return decisions.find(
            (decision): decision is Approval =>
              decision.isApproval() && decision.tool_name === toolName,
          );
        },
        { what: `a parked ${toolName} call` },
      ),
    tasks: (runId) => workspace.runs.run(runId).tasks(),
    close: () => kernel.close(),
  };
}

const MOCK_USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** The AI SDK's mock model asking for one `lookup` call (with `input`), then answering `done`. */
export function oneLookupModel(callId: string, input = '{"q":1}'): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      step += 1;
      return step === 1
        ? {
            content: [{ type: 'tool-call', toolCallId: callId, toolName: 'lookup', input }],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage: MOCK_USAGE,
            warnings: [],
          }
        : {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: MOCK_USAGE,
            warnings: [],
          };
    },
  });
}

import { type ToolManifest, tighten, validateProfileConfiguration } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { ProviderConfig } from '../../providers/types.js';
import { type Principal, principalName } from '../../store/accounts.js';
import { findOwnConversation, lockConversation } from '../../store/conversations.js';
import { newSortableId } from '../../store/ids.js';
import { currentProfileConfiguration } from '../../store/profiles.js';
import type { RunLoop, RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { abortRunModelRequest } from '../loop/model-stop.js';
import { advanceInline } from '../loop/run-loop.js';
import { endRun, RUN_START, startRun } from '../machines/run-machine.js';
import { lockRun, readRun } from '../machines/run-state.js';
import { PERMISSION_KEYS } from '../stage/permissions-layer.js';
import { freezePolicyLayers } from '../stage/policy-layers.js';
import { type RunView, runView } from '../views.js';

/** The approval configuration a run freezes. */
export interface FrozenConfiguration {
  approval_mode: 'bypass' | 'ask' | 'rules';
  approval_rules: unknown[];
  tool_names: string[] | null;
  tool_aliases: Record<string, string>;
  lifecycle_hooks: unknown;
  /** The policy layers' keys of the configuration (see policy-layers.ts); null when none. */
  policy_layers: Record<string, unknown> | null;
  config_version: number | null;
}

/** What starts a run, whichever door it came through. */
export interface RunStart {
  input: string;
  provider: ProviderConfig;
  on_failure?: 'continue' | 'hold' | undefined;
  /** Compact the model's context past this many UTF-8 bytes; absent never compacts. */
  context_limit_bytes?: number | undefined;
  /** Compact past this many estimated tokens (UTF-8 bytes / 4); absent never compacts. */
  context_limit_tokens?: number | undefined;
}

/** The mode a profile that declares none runs under. */
export const DEFAULT_APPROVAL_MODE = 'ask';

/**
 * Whose loop composes a new run's calls: a hooked session's turn (it has a
 * keeper), a regenerated run's original's, else its provider's (the
 * `gateway` provider is a client's loop; any other, the kernel's).
 */
function loopOf(options: {
  keeper?: TurnKeeper | undefined;
  regeneratedLoop?: RunLoop | undefined;
  provider: ProviderConfig;
}): RunLoop {
  if (options.keeper) return 'hooked';
  if (options.regeneratedLoop) return options.regeneratedLoop;
  return options.provider.kind === 'gateway' ? 'gateway' : 'kernel';
}

/**
 * Who keeps a conversation's current turn (a hooked session): a new turn asks it, under the
 * conversation's lock, whether a concurrent event already started one, and hands it the new run
 * in the run's own transaction. So two events that race to open a turn make one run.
 */
export interface TurnKeeper {
  /** The turn that runs now (started meanwhile by another event), or null when one is needed. */
  running(tx: Tx): Promise<RunTable | null>;
  /** Makes a new run the current turn. */
  adopt(tx: Tx, run: RunTable): Promise<void>;
}

async function insertRun(
  ctx: KernelContext,
  options: {
    principal: Principal;
    agentApplicationId: string | null;
    conversationId: string | null;
    regeneratedFrom: string | null;
    frozen: FrozenConfiguration;
    start: RunStart;
    keeper?: TurnKeeper | undefined;
    /** A regenerated run's original's loop. */
    regeneratedLoop?: RunLoop | undefined;
  },
): Promise<RunTable> {
  const { frozen, start } = options;
  checkProvider(ctx, start.provider);
  return ctx.store.transaction(async (tx) => {
    await holdWhatTheRunNames(tx, options);
    // Under the conversation's lock: a turn another event started meanwhile is the one to use.
    const running = await options.keeper?.running(tx);
    if (running) return running;
    const run: RunTable = {
      id: newSortableId('run'),
      workspace_id: options.principal.workspace_id,
      agent_application_id: options.agentApplicationId,
      conversation_id: options.conversationId,
      regenerated_from: options.regeneratedFrom,
      loop: loopOf({ ...options, provider: start.provider }),
      ...RUN_START,
      approval_mode: frozen.approval_mode,
      approval_rules: JSON.stringify(frozen.approval_rules),
      tool_names: frozen.tool_names ? JSON.stringify(frozen.tool_names) : null,
      tool_aliases: JSON.stringify(frozen.tool_aliases),
      lifecycle_hooks: frozen.lifecycle_hooks ? JSON.stringify(frozen.lifecycle_hooks) : null,
      policy_layers: frozen.policy_layers ? JSON.stringify(frozen.policy_layers) : null,
      config_version: frozen.config_version,
      provider: JSON.stringify(start.provider),
      input: JSON.stringify({ content: start.input }),
      on_failure: start.on_failure ?? 'continue',
      round: 0,
      task_counter: 0,
      attention: null,
      final_answer: null,
      error_code: null,
      error_detail: null,
      model_lease_owner: null,
      model_lease_until: null,
      continuations: 0,
      pending_answer: null,
      context_limit_bytes: start.context_limit_bytes ?? null,
      context_limit_tokens: start.context_limit_tokens ?? null,
      compactions: 0,
      summary: null,
      summary_through_round: 0,
      created_by: principalName(options.principal),
      created_at: tx.now,
      updated_at: tx.now,
      ended_at: null,
    };
    await startRun(tx, run);
    await options.keeper?.adopt(tx, run);
    tx.emit({
      workspace_id: run.workspace_id,
      run_id: run.id,
      type: 'run.created',
      data: {
        approval_mode: run.approval_mode,
        config_version: run.config_version,
        conversation_id: run.conversation_id,
        agent_application_id: run.agent_application_id,
      },
      principal: run.created_by,
    });
    await advanceInline(ctx, tx, run);
    return run;
  });
}

/**
 * Reads again, locked until the run's insert commits, the rows a new run
 * names that the pruner may delete meanwhile (its conversation, the run it
 * regenerates): a turn that loses that race answers not found and writes nothing.
 * @throws AirlockError conversation_not_found, run_not_found (a regenerated run that is gone).
 */
async function holdWhatTheRunNames(
  tx: Tx,
  options: { principal: Principal; conversationId: string | null; regeneratedFrom: string | null },
): Promise<void> {
  const workspaceId = options.principal.workspace_id;
  // The conversation first, then the run: the order in which the pruner locks and deletes them.
  if (
    options.conversationId !== null &&
    !(await lockConversation(tx, workspaceId, options.conversationId))
  ) {
    throw options.regeneratedFrom === null
      ? new AirlockError('conversation_not_found', `no conversation ${options.conversationId}`)
      : new AirlockError('run_not_found', `no run ${options.regeneratedFrom} in this workspace`);
  }
  if (options.regeneratedFrom !== null) await lockRun(tx, workspaceId, options.regeneratedFrom);
}

function validateFrozen(configuration: Record<string, unknown>): void {
  const validated = validateProfileConfiguration(configuration);
  if (!validated.ok) {
    throw new AirlockError(
      'invalid_configuration',
      `the configuration has ${validated.problems.length} problem(s)`,
      validated.problems,
    );
  }
}

/**
 * Refuses, before anything is written, a provider configuration the deployment's provider finds
 * wrong (an `openai` base URL it does not admit): every door that makes a run (a standalone run,
 * a turn, a regenerate) passes here through insertRun.
 * @throws AirlockError invalid_configuration listing every problem.
 */
function checkProvider(ctx: KernelContext, provider: ProviderConfig): void {
  const problems = ctx.providers.get(provider.kind)?.configProblems?.(provider) ?? [];
  if (problems.length > 0) {
    throw new AirlockError(
      'invalid_configuration',
      `the run's provider has ${problems.length} problem(s)`,
      problems,
    );
  }
}

/**
 * Creates a standalone run with its own mode and rules (the create shell).
 * A member's run has no agent application: its parks are addressed to nobody.
 * @throws AirlockError invalid_configuration listing every problem.
 */
export async function createStandaloneRun(
  ctx: KernelContext,
  principal: Principal,
  request: RunStart & {
    approval_mode: 'bypass' | 'ask' | 'rules';
    approval_rules?: unknown;
    tool_names?: string[] | undefined;
    tool_aliases?: Record<string, string> | undefined;
    lifecycle_hooks?: unknown;
    action_contract?: unknown;
  },
): Promise<RunTable> {
  const declared: Record<string, unknown> = {
    approval_mode: request.approval_mode,
    approval_rules: request.approval_rules ?? [],
  };
  if (request.tool_names !== undefined) declared.tool_names = request.tool_names;
  if (request.tool_aliases !== undefined) declared.tool_aliases = request.tool_aliases;
  if (request.lifecycle_hooks !== undefined) declared.lifecycle_hooks = request.lifecycle_hooks;
  if (request.action_contract !== undefined) declared.action_contract = request.action_contract;
  // The spec 003 keys are checked as a profile's are (a custom set may not shadow a built-in).
  for (const key of PERMISSION_KEYS) {
    const value = (request as unknown as Record<string, unknown>)[key];
    if (value !== undefined) declared[key] = value;
  }
  validateFrozen(declared);
  return insertRun(ctx, {
    principal,
    agentApplicationId: principal.kind === 'agent' ? principal.agent_application_id : null,
    conversationId: null,
    regeneratedFrom: null,
    frozen: {
      approval_mode: request.approval_mode,
      approval_rules: (request.approval_rules as unknown[] | undefined) ?? [],
      tool_names: request.tool_names ?? null,
      tool_aliases: request.tool_aliases ?? {},
      lifecycle_hooks: request.lifecycle_hooks ?? null,
      policy_layers: freezePolicyLayers(request as unknown as Record<string, unknown>),
      config_version: null,
    },
    start: request,
  });
}

/**
 * Starts a run-backed turn of a conversation: freezes the profile's current
 * configuration, narrowed by the input's tightening. With a keeper, the turn
 * it already runs (another event started it meanwhile) instead of a second.
 * @throws AirlockError conversation_not_found, no_profile_configuration, tightening_widens,
 *   invalid_configuration (the provider's).
 */
export async function startTurn(
  ctx: KernelContext,
  principal: Principal,
  request: RunStart & {
    conversation_id: string;
    approval_mode?: 'bypass' | 'ask' | 'rules' | undefined;
    tool_names?: string[] | undefined;
  },
  keeper?: TurnKeeper,
  /** A hooked agent's shipped manifest, frozen when the profile declares none (its own wins). */
  shippedManifest?: ToolManifest,
): Promise<RunTable> {
  const conversation = await findOwnConversation(ctx.store, {
    workspaceId: principal.workspace_id,
    agentApplicationId: principal.agent_application_id ?? '',
    id: request.conversation_id,
  });
  if (!conversation) {
    throw new AirlockError('conversation_not_found', `no conversation ${request.conversation_id}`);
  }
  const profile = await currentProfileConfiguration(ctx.store, conversation.agent_application_id);
  if (!profile) {
    throw new AirlockError(
      'no_profile_configuration',
      'declare a profile configuration (PUT /agent_api/v1/profile/configuration) before starting turns',
    );
  }
  const configuration = profile.configuration as {
    approval_mode?: 'bypass' | 'ask' | 'rules';
    approval_rules?: unknown[];
    tool_names?: string[];
    tool_aliases?: Record<string, string>;
    lifecycle_hooks?: unknown;
  };
  const narrowed = tighten(
    {
      approval_mode: configuration.approval_mode ?? DEFAULT_APPROVAL_MODE,
      tool_names: configuration.tool_names,
    },
    { approval_mode: request.approval_mode, tool_names: request.tool_names },
  );
  if (!narrowed.ok) throw new AirlockError('tightening_widens', narrowed.error.detail);
  return insertRun(ctx, {
    principal,
    agentApplicationId: conversation.agent_application_id,
    conversationId: conversation.id,
    regeneratedFrom: null,
    frozen: {
      approval_mode: narrowed.value.approval_mode,
      approval_rules: configuration.approval_rules ?? [],
      tool_names: narrowed.value.tool_names ?? null,
      tool_aliases: configuration.tool_aliases ?? {},
      lifecycle_hooks: configuration.lifecycle_hooks ?? null,
      policy_layers: freezePolicyLayers(
        shippedManifest !== undefined && profile.configuration.tool_manifest === undefined
          ? { ...profile.configuration, tool_manifest: shippedManifest }
          : profile.configuration,
      ),
      config_version: profile.version,
    },
    start: request,
    keeper,
  });
}

/**
 * Regenerates a turn: a new run with the original's frozen configuration,
 * input and provider (never the profile's newer version).
 * @throws AirlockError run_not_found; invalid_configuration when the deployment no
 *   longer admits the original's provider (a base URL not in --model-base-urls).
 */
export async function regenerateRun(
  ctx: KernelContext,
  principal: Principal,
  runId: string,
): Promise<RunTable> {
  const original = await readRun(ctx.store, principal.workspace_id, runId);
  if (
    principal.kind === 'agent' &&
    original.agent_application_id !== principal.agent_application_id
  ) {
    throw new AirlockError('run_not_found', `no run ${runId} in this workspace`);
  }
  const start: RunStart = {
    input: (JSON.parse(original.input) as { content: string }).content,
    provider: JSON.parse(original.provider) as ProviderConfig,
    on_failure: original.on_failure,
  };
  if (original.context_limit_bytes !== null)
    start.context_limit_bytes = original.context_limit_bytes;
  if (original.context_limit_tokens !== null) {
    start.context_limit_tokens = original.context_limit_tokens;
  }
  return insertRun(ctx, {
    principal,
    agentApplicationId: original.agent_application_id,
    conversationId: original.conversation_id,
    regeneratedFrom: original.id,
    regeneratedLoop: original.loop,
    frozen: {
      approval_mode: original.approval_mode,
      approval_rules: JSON.parse(original.approval_rules) as unknown[],
      tool_names: original.tool_names ? (JSON.parse(original.tool_names) as string[]) : null,
      tool_aliases: JSON.parse(original.tool_aliases) as Record<string, string>,
      lifecycle_hooks: original.lifecycle_hooks ? JSON.parse(original.lifecycle_hooks) : null,
      policy_layers: original.policy_layers ? JSON.parse(original.policy_layers) : null,
      config_version: original.config_version,
    },
    start,
  });
}

/**
 * Stops a running run: cancels its unstarted rows (parks included) and ends it canceled.
 * @throws AirlockError run_not_found, run_not_running.
 */
export async function stopRun(
  ctx: KernelContext,
  principal: Principal,
  runId: string,
  options: { end: 'canceled' | 'abandoned' },
): Promise<RunView> {
  return ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, principal.workspace_id, runId);
    if (run.state !== 'running') {
      throw new AirlockError('run_not_running', `run ${runId} is ${run.state}`);
    }
    const who = principalName(principal);
    if (options.end === 'abandoned') {
      await endRun(tx, run, {
        state: 'failed',
        error: { code: 'abandoned', detail: `abandoned by ${who}` },
        principal: who,
      });
    } else {
      await endRun(tx, run, { state: 'canceled', principal: who });
    }
    // A round this kernel is asking for the run would only be dropped: its request stops now.
    tx.afterCommit(() => abortRunModelRequest(ctx, runId));
    return runView(run);
  });
}

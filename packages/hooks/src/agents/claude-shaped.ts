import type { HookedAgent } from '@airlock/core';
import { eventNamed, type PayloadShape, parseHookPayload } from './parse-event.js';
import { json, outputText } from './payload.js';
import type { AgentOutput, AgentProtocol, NeutralEvent, Reply } from './types.js';

/** The hook events Claude Code and Codex share, mapped to the kernel's. */
const EVENTS: Record<string, NeutralEvent['event']> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'turn_start',
  PreToolUse: 'pre_tool',
  PostToolUse: 'post_tool',
  PostToolUseFailure: 'post_tool',
  Stop: 'stop',
  PreCompact: 'pre_compact',
};

function toolResponseFailed(response: unknown): boolean {
  if (typeof response !== 'object' || response === null) return false;
  const body = response as Record<string, unknown>;
  return body.is_error === true || body.success === false || typeof body.error === 'string';
}

/**
 * The protocol Claude Code speaks, and Codex after it: `PreToolUse` answers
 * `hookSpecificOutput.permissionDecision` (allow, deny, ask, defer) with a
 * `permissionDecisionReason` the model reads on a deny; `Stop` and
 * `UserPromptSubmit` answer `{"decision":"block","reason"}`; context rides
 * in `additionalContext`.
 */
export function claudeShaped(
  agent: HookedAgent,
  options: {
    nativeAsk: boolean;
    canDefer: boolean;
    updatesInput: boolean;
    hookEvents: readonly string[];
  },
): AgentProtocol {
  const shape: PayloadShape = {
    events: EVENTS,
    stopTextField: 'last_assistant_message',
    postTool(body, eventName) {
      const failed = eventName === 'PostToolUseFailure' || toolResponseFailed(body.tool_response);
      return {
        outcome: failed ? 'failed' : 'succeeded',
        output: outputText(body.tool_response ?? body.error),
        // A parked call the agent ran anyway was answered in the agent's own prompt.
        answered_by_user: options.nativeAsk,
      };
    },
  };
  return {
    agent,
    hookEvents: options.hookEvents,
    nativeAsk: options.nativeAsk,
    canDefer: options.canDefer,
    updatesInput: options.updatesInput,
    parse(payload) {
      return parseHookPayload(agent, shape, payload);
    },
    eventOf(eventName) {
      return eventNamed(EVENTS, eventName);
    },
    format(event, reply) {
      return formatClaude(event, reply);
    },
  };
}

const EVENT_NAMES: Record<NeutralEvent['event'], string> = {
  session_start: 'SessionStart',
  turn_start: 'UserPromptSubmit',
  pre_tool: 'PreToolUse',
  post_tool: 'PostToolUse',
  stop: 'Stop',
  pre_compact: 'PreCompact',
};

function formatClaude(event: NeutralEvent, reply: Reply): AgentOutput {
  // The agent's own name, echoed (`PostToolUseFailure` too); the kernel's mapped back when unknown.
  const hookEventName = event.hook_event_name ?? EVENT_NAMES[event.event];
  if (event.event === 'pre_tool') {
    const decision = (
      permissionDecision: string,
      reason: string,
      context?: string | null,
      updatedInput?: unknown,
    ) =>
      json({
        hookSpecificOutput: {
          hookEventName,
          permissionDecision,
          permissionDecisionReason: reason,
          ...(context ? { additionalContext: context } : {}),
          // Claude Code runs the tool with this input instead of the model's (approve with changes).
          ...(updatedInput === undefined ? {} : { updatedInput }),
        },
      });
    switch (reply.kind) {
      case 'allow':
        return reply.updatedInput === undefined
          ? decision('allow', 'Airlock granted this call', reply.context)
          : decision(
              'allow',
              'Airlock granted this call as a person edited it',
              reply.context,
              reply.updatedInput,
            );
      case 'ask':
        return decision('ask', reply.reason);
      case 'defer':
        return decision('defer', reply.reason);
      case 'deny':
        return decision('deny', reply.reason);
      default:
        // A tool call is never let through by a reply that is not an allow.
        return decision('deny', 'Airlock could not decide this call');
    }
  }
  if (reply.kind === 'continue') return json({ decision: 'block', reason: reply.feedback });
  if (reply.kind === 'deny' && event.event === 'turn_start') {
    return json({ decision: 'block', reason: reply.reason });
  }
  const context = reply.kind === 'pass' || reply.kind === 'allow' ? reply.context : null;
  const note = reply.kind === 'pass' ? reply.note : reply.kind === 'deny' ? reply.reason : null;
  const canAddContext = ['session_start', 'turn_start', 'post_tool'].includes(event.event);
  return json({
    ...(context && canAddContext
      ? { hookSpecificOutput: { hookEventName, additionalContext: context } }
      : {}),
    ...(note ? { systemMessage: note } : {}),
  });
}

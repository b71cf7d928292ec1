import { posix } from 'node:path';
import type { HookedAgent } from '@airlock/core';
import { eventText, header, objectOf, reportedOutput, text } from './payload.js';
import type { NeutralEvent } from './types.js';

/** Where one agent's hook payload differs from the skeleton every agent shares. */
export interface PayloadShape {
  /** The agent's hook event names, mapped to the kernel's. */
  events: Record<string, NeutralEvent['event']>;
  /** The field that holds the model's last message on the stop event. */
  stopTextField: string;
  /** The outcome fields of a post-tool event, read from its payload. */
  postTool(
    body: Record<string, unknown>,
    eventName: string,
  ): Pick<NeutralEvent, 'outcome' | 'output' | 'answered_by_user'>;
  /**
   * The directory a call's own input says it runs in (Gemini CLI's shell
   * `dir_path`), relative to the payload's `cwd` or absolute; undefined when
   * it names none.
   */
  callDirectory?(toolName: string, toolInput: unknown): string | undefined;
}

/**
 * The kernel's event for an agent's hook event name, from the agent's own
 * map; null for a name it does not hold (an inherited key such as
 * `constructor` included).
 */
export function eventNamed(
  events: PayloadShape['events'],
  eventName: string,
): NeutralEvent['event'] | null {
  return Object.hasOwn(events, eventName) ? (events[eventName] ?? null) : null;
}

/**
 * Reads one hook payload into the neutral event the kernel takes: the
 * session, the event, and for tool events the call (and its outcome after).
 * Null for an event Airlock does not handle; an error naming what is missing.
 */
export function parseHookPayload(
  agent: HookedAgent,
  shape: PayloadShape,
  payload: unknown,
): NeutralEvent | null {
  const body = objectOf(payload);
  const { sessionId, eventName } = header(body);
  const event = eventNamed(shape.events, eventName);
  if (!event) return null;
  const base: NeutralEvent = { agent, session_id: sessionId, event, hook_event_name: eventName };
  switch (event) {
    case 'pre_tool':
    case 'post_tool': {
      const toolName = text(body, 'tool_name');
      if (!toolName) throw new Error(`the ${eventName} payload has no tool_name`);
      const toolUseId = text(body, 'tool_use_id');
      const call: NeutralEvent = {
        ...base,
        tool_name: toolName,
        tool_input: body.tool_input ?? {},
        ...(toolUseId ? { tool_use_id: toolUseId } : {}),
      };
      // Every agent says where its shell stands (Claude Code keeps a `cd` between Bash calls):
      // a relative path in the call is read from there, not from the project root.
      const named = shape.callDirectory?.(toolName, call.tool_input);
      const cwd = directoryOfCall(text(body, 'cwd'), named === '' ? undefined : named);
      if (event === 'pre_tool') return cwd === undefined ? call : { ...call, cwd };
      const ran = shape.postTool(body, eventName);
      return { ...call, ...ran, output: reportedOutput(ran.output ?? '') };
    }
    case 'turn_start':
      return { ...base, text: eventText(text(body, 'prompt') ?? '') };
    case 'stop':
      return { ...base, text: eventText(text(body, shape.stopTextField) ?? '') };
    case 'pre_compact':
      return { ...base, trigger: text(body, 'trigger') ?? 'auto' };
    default:
      return base;
  }
}

/**
 * Where a call runs: the directory its input names, read from the agent's
 * working directory (`dir_path: secrets` from `/repo` is `/repo/secrets`),
 * else that working directory. A relative one with no absolute working
 * directory to read it from is sent as it is: the kernel cannot place it,
 * so a deny or ask path rule asks rather than reading it from the project root.
 */
function directoryOfCall(cwd: string | undefined, named: string | undefined): string | undefined {
  if (named === undefined) return cwd;
  if (named.startsWith('/') || cwd === undefined || !cwd.startsWith('/')) return named;
  return posix.join(cwd, named);
}

import type { HookedAgent } from '@airlock/core';
import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { gemini } from './gemini.js';
import type { AgentProtocol } from './types.js';

/** Every agent's protocol, by the name the CLI takes. */
export const AGENT_PROTOCOLS: Readonly<Record<HookedAgent, AgentProtocol>> = {
  'claude-code': claudeCode,
  codex,
  gemini,
};

/** The protocol of an agent named on the command line, or null for a name Airlock does not know. */
export function protocolOf(name: string): AgentProtocol | null {
  return (AGENT_PROTOCOLS as Record<string, AgentProtocol>)[name] ?? null;
}

/**
 * The agent whose tool check an event named so is (`PreToolUse`: Claude Code, whose shape Codex
 * shares; `BeforeTool`: Gemini CLI), or null for an event that checks no tool. An entry copied
 * from another agent's settings sends such a check where it is not read: answered nothing, the
 * agent would run the call unasked.
 */
export function toolCheckAgentOf(eventName: unknown): AgentProtocol | null {
  if (typeof eventName !== 'string') return null;
  return (
    Object.values(AGENT_PROTOCOLS).find((agent) => agent.eventOf(eventName) === 'pre_tool') ?? null
  );
}

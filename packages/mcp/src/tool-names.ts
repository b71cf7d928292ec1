import { isStorableText, shortened, visibleText } from '@airlock/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * The longest tool name (its own, before the server's prefix) the bridge
 * serves. Its executor's claim names up to 256 of its tools in one request
 * under the kernel's body limit, so one very long name would keep the
 * executor from claiming any tool of that group.
 */
export const TOOL_NAME_MAX = 1024;

/**
 * Why the bridge cannot serve a tool by this name, or null when it can: one
 * over {@link TOOL_NAME_MAX} characters, or one holding NUL or a lone
 * surrogate, which the kernel refuses in every claim that names it (a name
 * it refuses in a profile, a hidden character, is the kernel's to refuse
 * when the bridge registers the tools).
 */
export function toolNameProblem(name: string): string | null {
  if (name.length > TOOL_NAME_MAX) {
    return `is ${name.length} characters long, more than ${TOOL_NAME_MAX}`;
  }
  if (!isStorableText(name)) {
    return 'holds NUL (U+0000) or a lone surrogate, which the kernel keeps in no name';
  }
  return null;
}

/**
 * Checks the tools one server lists: each name one the bridge can serve, and
 * none listed twice (the kernel would judge a call by the first entry while
 * the gateway lists the last to its clients).
 * @throws Error naming the server and every tool it cannot serve (each name
 *   shown with its hidden characters as marks, a long one shortened).
 */
export function checkToolNames(serverName: string, tools: readonly Tool[]): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    const shown = JSON.stringify(shortened(visibleText(tool.name, { oneLine: true }), 80));
    const problem = toolNameProblem(tool.name);
    if (problem !== null) problems.push(`the tool name ${shown} ${problem}`);
    else if (seen.has(tool.name)) problems.push(`the tool ${shown} is listed twice`);
    seen.add(tool.name);
  }
  if (problems.length > 0) {
    throw new Error(`the MCP server ${serverName} cannot be served: ${problems.join('; ')}`);
  }
}

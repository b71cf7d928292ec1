import { isStorableText, resolveToolName, shortened, visibleText } from '@airlock/core';
import { CALL_NAME_MAX } from '@airlock/core/wire';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { prefixedName } from './manifest.js';

/**
 * The longest name a call may have, its server's prefix included (core's
 * figure, the kernel's own): the kernel refuses a model's or a gateway
 * client's call by a longer name, so a tool past it would be listed and
 * never run.
 */
export { CALL_NAME_MAX };

/**
 * Why the bridge cannot serve a tool of `serverName` by this name, or null
 * when it can: one whose prefixed name (`fs__read_file`) is over
 * {@link CALL_NAME_MAX} characters, or one holding NUL or a lone surrogate,
 * which the kernel refuses in every claim that names it, or one ending in
 * `__` and 12 lowercase hex digits, whose calls the kernel's rules and
 * manifest would judge as the tool the name ends before (a name it refuses
 * in a profile, a hidden character, is the kernel's to refuse when the
 * bridge registers the tools).
 */
export function toolNameProblem(serverName: string, name: string): string | null {
  const length = prefixedName(serverName, name).length;
  if (length > CALL_NAME_MAX) {
    return `is ${length} characters long as ${serverName}__…, more than the ${CALL_NAME_MAX} the kernel takes in a call's name`;
  }
  if (!isStorableText(name)) {
    return 'holds NUL (U+0000) or a lone surrogate, which the kernel keeps in no name';
  }
  // The rules and the manifest would judge its calls as another tool's (a read-only one, say).
  const prefixed = prefixedName(serverName, name);
  const judgedAs = resolveToolName(prefixed);
  if (judgedAs !== prefixed) {
    return `ends in __ and 12 hex digits, which the kernel reads as a runner qualification: its calls would be judged as ${judgedAs}`;
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
    const problem = toolNameProblem(serverName, tool.name);
    if (problem !== null) problems.push(`the tool name ${shown} ${problem}`);
    else if (seen.has(tool.name)) problems.push(`the tool ${shown} is listed twice`);
    seen.add(tool.name);
  }
  if (problems.length > 0) {
    throw new Error(`the MCP server ${serverName} cannot be served: ${problems.join('; ')}`);
  }
}

import { type CallToolRequest, CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { issuesText } from '../schema-issues.js';

/**
 * The deepest nesting a call's `arguments` may have (the object itself is
 * level 1): the kernel refuses a request body nesting past 64 levels, and
 * the arguments sit at level 4 of the submit that carries them.
 */
export const ARGUMENT_DEPTH_LIMIT = 61;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `value` nests arrays and objects deeper than `limit`, read without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * What is wrong with a `tools/call`'s params, in one line for the client,
 * or null when they can be sent on: the SDK's own check answers -32603
 * with a validation dump, and very deep arguments overflow its stack.
 */
export function callParamsProblem(params: unknown): string | null {
  if (!isPlainObject(params)) return 'tools/call needs params {"name": "...", "arguments": {...}}';
  if (typeof params.name !== 'string') return 'params.name must be the tool name, a string';
  const { arguments: input } = params;
  if (input !== undefined && !isPlainObject(input)) {
    return 'params.arguments must be an object of the tool input';
  }
  if (nestsDeeperThan(input, ARGUMENT_DEPTH_LIMIT)) {
    return `params.arguments nest deeper than ${ARGUMENT_DEPTH_LIMIT} levels`;
  }
  return null;
}

/** The params of the `tools/call`s {@link checkCall} took: not checked again. */
const checkedParams = new WeakSet<object>();

/**
 * Checks a `tools/call`'s params once: by hand first (deep arguments would
 * overflow the schema's recursion), then against the MCP SDK's
 * `CallToolRequestSchema`. Answers the request as that schema makes it (a
 * `__proto__` key or a member the schema does not name is dropped, as the
 * SDK's own check of each call did), or the problem in one short line
 * (`tools/call: params.name: …`).
 */
export function checkCall(
  params: unknown,
): { request: CallToolRequest; problem?: undefined } | { request?: undefined; problem: string } {
  if (isPlainObject(params) && checkedParams.has(params)) {
    return { request: { method: 'tools/call', params } as CallToolRequest };
  }
  const problem = callParamsProblem(params);
  if (problem !== null) return { problem };
  const checked = CallToolRequestSchema.safeParse({ method: 'tools/call', params });
  if (!checked.success) {
    const issues = issuesText(checked.error.issues, 'invalid params');
    return { problem: `tools/call: ${issues}`.slice(0, 300) };
  }
  checkedParams.add(checked.data.params);
  return { request: checked.data };
}

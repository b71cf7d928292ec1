import type { TaskView } from '@airlock/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The states a row does not leave by itself. */
export const SETTLED_STATES: readonly string[] = ['succeeded', 'failed', 'timed_out', 'canceled'];

/** What the model reads for a park nobody decided in time (the kernel's own words). */
const EXPIRED_TEXT = 'Nobody approved this tool call before it expired.';

/** Failures a row commits instead of a result the kernel refused: the tool ran, its result is gone. */
const UNRECORDED_RESULT = ['result_too_large', 'invalid_result', 'result_undeliverable'];

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * The MCP answer for a settled row: the bridged server's result when it ran;
 * otherwise `isError` with what the model would read in a kernel run (the
 * refusal with its reason, the server's own error text, the expiry notice,
 * or that the tool ran but its result was not recorded, never the result).
 */
export function toolResultOf(task: TaskView): CallToolResult {
  switch (task.state) {
    case 'succeeded': {
      const result = task.result as { content?: unknown; structuredContent?: unknown } | null;
      if (result && Array.isArray(result.content)) return result as CallToolResult;
      return { content: [{ type: 'text', text: JSON.stringify(task.result) }] };
    }
    case 'timed_out':
      return errorResult(EXPIRED_TEXT);
    case 'canceled':
      return errorResult('The call was canceled before it ran.');
    default: {
      const code = task.error?.code ?? 'failed';
      const detail = task.error?.detail ?? '';
      if (code === 'approval_denied') return errorResult(`Airlock refused this call: ${detail}`);
      if (code === 'tool_error') return errorResult(detail);
      if (UNRECORDED_RESULT.includes(code)) {
        return errorResult(
          `The tool ran, but Airlock could not record its result (${code}): ${detail}`,
        );
      }
      return errorResult(`${code}: ${detail}`);
    }
  }
}

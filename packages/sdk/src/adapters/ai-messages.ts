// How the AI SDK's model messages name tool calls and approvals, read structurally.

/** A model message as the AI SDK keeps it (`ModelMessage`). */
export interface AiSdkMessage {
  role: string;
  content: unknown;
}

interface MessagePart {
  type: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  approvalId?: string;
}

/** The parts of the messages, in order. */
function partsOf(messages: readonly AiSdkMessage[]): MessagePart[] {
  return messages.flatMap((message) =>
    Array.isArray(message.content) ? (message.content as MessagePart[]) : [],
  );
}

/** An approval request the messages hold, with the call it asks about. */
export interface ApprovalRequestSeen {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * The approval requests of the messages: those not answered yet, and those
 * answered with a denial (which the SDK never executes).
 */
export function approvalRequests(messages: readonly AiSdkMessage[]): {
  open: ApprovalRequestSeen[];
  denied: ApprovalRequestSeen[];
} {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const requests: ApprovalRequestSeen[] = [];
  const answered = new Map<string, boolean>();
  for (const part of partsOf(messages)) {
    const callId = part.toolCallId ?? '';
    if (part.type === 'tool-call') {
      calls.set(callId, { toolName: part.toolName ?? '', input: part.input });
    }
    if (part.type === 'tool-approval-request') {
      const call = calls.get(callId);
      requests.push({
        approvalId: part.approvalId ?? '',
        toolCallId: callId,
        toolName: call?.toolName ?? '',
        input: call?.input,
      });
    }
    if (part.type === 'tool-approval-response') {
      answered.set(part.approvalId ?? '', (part as { approved?: unknown }).approved === true);
    }
  }
  return {
    open: requests.filter((request) => !answered.has(request.approvalId)),
    denied: requests.filter((request) => answered.get(request.approvalId) === false),
  };
}

/** True when the messages hold an approval request for the call: it was parked. */
export function wasParked(messages: readonly AiSdkMessage[], callId: string): boolean {
  return partsOf(messages).some(
    (part) => part.type === 'tool-approval-request' && part.toolCallId === callId,
  );
}

/**
 * The ids of the tool calls the messages declare. A call declared there belongs
 * to a step the SDK is done with: the messages are what a later step, or a
 * later generation, starts from.
 */
export function declaredCallIds(messages: readonly AiSdkMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const part of partsOf(messages)) {
    if (part.type === 'tool-call' && part.toolCallId !== undefined) ids.add(part.toolCallId);
  }
  return ids;
}

/** A call of the messages whose approval request has no answer yet (no response, no result). */
export interface UnansweredCall {
  toolCallId: string;
  toolName: string;
}

/**
 * The calls whose approval request the messages leave unanswered: the AI SDK sends the model
 * nothing until every call of a step has a result, so a generation from these messages throws.
 * Calls a provider executes are its own business, and left out.
 */
export function unansweredCalls(messages: readonly AiSdkMessage[]): UnansweredCall[] {
  const calls = new Map<string, string>();
  const asked: { approvalId: string; toolCallId: string }[] = [];
  const responded = new Set<string>();
  const resulted = new Set<string>();
  for (const part of partsOf(messages)) {
    const toolCallId = part.toolCallId ?? '';
    const byProvider = (part as { providerExecuted?: unknown }).providerExecuted === true;
    if (part.type === 'tool-call' && !byProvider) calls.set(toolCallId, part.toolName ?? '');
    if (part.type === 'tool-approval-request') {
      asked.push({ approvalId: part.approvalId ?? '', toolCallId });
    }
    if (part.type === 'tool-approval-response') responded.add(part.approvalId ?? '');
    if (part.type === 'tool-result') resulted.add(toolCallId);
  }
  return asked.flatMap(({ approvalId, toolCallId }) => {
    const toolName = calls.get(toolCallId);
    if (toolName === undefined || responded.has(approvalId) || resulted.has(toolCallId)) return [];
    return [{ toolCallId, toolName }];
  });
}

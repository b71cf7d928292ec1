import { canonicalJson } from '@airlock/core';
import type { CallVerdict, FrameworkCall } from './session.js';

/**
 * True when two calls are the same call: the same tool and the same input,
 * compared as canonical JSON (key order does not count), as the kernel
 * compares a call presented under a row's call id.
 */
export function sameCall(checked: FrameworkCall, presented: FrameworkCall): boolean {
  return (
    checked.name === presented.name &&
    checked.callId === presented.callId &&
    canonicalJson(checked.input ?? {}) === canonicalJson(presented.input ?? {})
  );
}

/**
 * The verdict a framework may use for the call it is about to run: the one
 * Airlock gave for that call, or, when the framework presents another tool or
 * another input under the checked call id (its saved state edited after the
 * check), a `call_mismatch` refusal: a grant belongs to the call Airlock
 * checked, never to whatever the framework runs under its id.
 */
export function bindVerdict(
  checked: FrameworkCall,
  verdict: CallVerdict,
  presented: FrameworkCall,
): CallVerdict {
  // Only a grant binds: a refusal or a park runs nothing whatever the call, and keeps the
  // kernel's own reason (one for an input that cannot be sent as JSON, which no comparison reads).
  if (verdict.verdict !== 'allow' || sameCall(checked, presented)) return verdict;
  return {
    verdict: 'deny',
    reason:
      `call_mismatch: the framework is about to run ${presented.name} ` +
      `${truncated(canonicalJson(presented.input ?? {}))} under call ` +
      `${presented.callId}, which Airlock checked as another ${checked.name} call: ` +
      'nothing ran; make a new call',
    taskKey: verdict.taskKey,
    runId: verdict.runId,
    requiresUser: false,
    code: 'call_mismatch',
  };
}

/** The most of a presented input a mismatch names. */
const INPUT_MAX_CHARS = 160;

function truncated(text: string): string {
  return text.length > INPUT_MAX_CHARS ? `${text.slice(0, INPUT_MAX_CHARS)}…` : text;
}

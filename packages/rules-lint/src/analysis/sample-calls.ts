import { globShape, mayIntersect, shapeMatches } from '../glob/glob-shape.js';
import { type RuleEntry, samePath } from './rule-entry.js';

/** A concrete call a rule matches: a tool name, and the text at its path (null: it has none). */
export interface SampleCall {
  readonly name: string;
  readonly text: string | null;
}

/**
 * Calls a rule surely matches: each tool alternative's sample names, with
 * the sample texts of its match (default `*`) when it reads a path.
 */
export function sampleCalls(entry: RuleEntry): readonly SampleCall[] {
  let calls = remembered.get(entry);
  if (!calls) {
    calls = computeSampleCalls(entry);
    remembered.set(entry, calls);
  }
  return calls;
}

const remembered = new WeakMap<RuleEntry, readonly SampleCall[]>();

function computeSampleCalls(entry: RuleEntry): SampleCall[] {
  const texts = entry.path === null ? [null] : globShape(entry.match ?? '*').samples;
  const calls: SampleCall[] = [];
  for (const alternative of entry.alternatives)
    for (const name of globShape(alternative).samples)
      for (const text of texts) calls.push({ name, text });
  return calls;
}

/** True when the rule matches the tool name. */
export function toolMatches(entry: RuleEntry, name: string): boolean {
  return entry.alternatives.some((alternative) => shapeMatches(globShape(alternative), name));
}

/**
 * A necessary condition for two rules to share a call: some pair of tool
 * alternatives may share a name, and, when both read the same path, their
 * matches may share a text (rules reading different paths may always share
 * one: a call carries both fields). False means no call matches both.
 */
export function callsMayIntersect(subject: RuleEntry, cover: RuleEntry): boolean {
  const tools = subject.alternatives.some((a) =>
    cover.alternatives.some((b) => mayIntersect(globShape(a), globShape(b))),
  );
  if (!tools) return false;
  if (subject.path === null || cover.path === null || !samePath(subject, cover)) return true;
  return mayIntersect(globShape(subject.match ?? '*'), globShape(cover.match ?? '*'));
}

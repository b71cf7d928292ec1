import { utf8Bytes } from '@airlock/core';
import { compileByteGlob } from '../glob/byte-nfa.js';
import { globShape, shapeMatches } from '../glob/glob-shape.js';
import {
  exploreProduct,
  findUncoveredText,
  globIncluded,
  toolPatternIncluded,
} from '../glob/inclusion.js';
import { type RuleEntry, readsCompatibleText } from './rule-entry.js';
import { callsMayIntersect, sampleCalls, toolMatches } from './sample-calls.js';

/**
 * Most covers a union question takes. Past it only single covers are tried
 * (the answer is then "unknown", never a guess): one product automaton over
 * hundreds of globs would cost more than the question is worth in an editor.
 */
export const MAX_UNION_COVERS = 64;

/**
 * Decides whether every call (tool name, input) that `subject` matches is
 * matched by `cover`, ignoring origin and verdict: tools(subject) ⊆
 * tools(cover), and either cover has no path, or both have the same path and
 * L(subject.match, default `*`) ⊆ L(cover.match, default `*`). Exact for
 * byte globs; undefined when the glob state budget ran out.
 */
export function ruleImplies(subject: RuleEntry, cover: RuleEntry): boolean | undefined {
  if (!readsCompatibleText(subject, cover)) return false;
  const tools = toolPatternIncluded(subject.tool, cover.tool);
  if (tools === false) return false;
  let texts: boolean | undefined = true;
  if (cover.path !== null && cover.match !== undefined)
    texts = globIncluded(subject.match ?? '*', cover.match);
  if (texts === false) return false;
  return tools === true && texts === true ? true : undefined;
}

/** A call the subject matches and no cover does: a tool name, and the text at the subject's path (null: any input). */
export interface UncoveredCall {
  readonly toolName: Uint8Array;
  readonly text: Uint8Array | null;
}

/**
 * Decides whether every call `subject` matches is matched by at least one
 * of `covers` (their union; origin and verdict are the caller's filter).
 * For each alternative of the subject's tool pattern, explores the product
 * automaton of that glob with every alternative of every cover; each
 * reachable accepting state gives the exact set of covers that match some
 * tool name there, and for that set the subject's text language must be
 * inside the union of their text languages. Undefined when out of budget.
 */
export function ruleCoveredByUnion(
  subject: RuleEntry,
  covers: readonly RuleEntry[],
): boolean | undefined {
  const uncovered = findUncoveredCall(subject, covers);
  return uncovered === undefined ? undefined : uncovered === null;
}

/**
 * The decision procedure of `ruleCoveredByUnion`, answering with a witness:
 * a call the subject matches and none of the covers does (null when the
 * covers match every call of the subject, undefined when out of budget).
 */
export function findUncoveredCall(
  subject: RuleEntry,
  covers: readonly RuleEntry[],
): UncoveredCall | null | undefined {
  const relevant = distinctLanguages(
    covers.filter(
      (cover) => readsCompatibleText(subject, cover) && callsMayIntersect(subject, cover),
    ),
  );
  // A call of the subject that no cover matches settles it without any automaton.
  for (const call of sampleCalls(subject)) {
    const matched = relevant.some(
      (cover) =>
        toolMatches(cover, call.name) &&
        (cover.path === null ||
          call.text === null ||
          shapeMatches(globShape(cover.match ?? '*'), call.text)),
    );
    if (!matched)
      return {
        toolName: utf8Bytes(call.name),
        text: call.text === null ? null : utf8Bytes(call.text),
      };
  }
  if (relevant.some((cover) => ruleImplies(subject, cover) === true)) return null;
  if (relevant.length > MAX_UNION_COVERS) return undefined;

  const owners: RuleEntry[] = [];
  const globs = relevant.flatMap((cover) =>
    cover.alternatives.map((alternative) => {
      owners.push(cover);
      return compileByteGlob(alternative);
    }),
  );
  const textCache = new Map<string, TextAnswer>();
  let unknown = false;
  for (const alternative of subject.alternatives) {
    let witness: UncoveredCall | undefined;
    const end = exploreProduct(compileByteGlob(alternative), globs, (accepting, toolName) => {
      const set = [...new Set(accepting.map((glob) => owners[glob]!))];
      const key = set.map((cover) => cover.index).join(',');
      if (!textCache.has(key)) textCache.set(key, uncoveredText(subject, set));
      const answer = textCache.get(key);
      if (answer === undefined) unknown = true;
      else if (answer !== null) witness = { toolName: toolName(), text: answer.text };
      return witness === undefined;
    });
    if (witness) return witness;
    if (end === 'budget') unknown = true;
  }
  return unknown ? undefined : null;
}

/** Keeps one cover per distinct (tool, path, match): duplicates add nothing to a union. */
function distinctLanguages(covers: readonly RuleEntry[]): RuleEntry[] {
  const seen = new Map<string, RuleEntry>();
  for (const cover of covers) {
    const key = JSON.stringify([
      cover.tool,
      cover.path,
      cover.path === null ? null : (cover.match ?? '*'),
    ]);
    if (!seen.has(key)) seen.set(key, cover);
  }
  return [...seen.values()];
}

/** null: the covers match every text of the subject; else a text they miss (null text: any input); undefined: unknown. */
type TextAnswer = { readonly text: Uint8Array | null } | null | undefined;

/** Whether the subject's texts lie inside the union of the covers' texts (covers share its path or have none). */
function uncoveredText(subject: RuleEntry, covers: readonly RuleEntry[]): TextAnswer {
  if (covers.some((cover) => cover.path === null || cover.match === undefined)) return null;
  if (subject.path === null) return { text: null };
  const text = findUncoveredText(
    subject.match ?? '*',
    covers.map((cover) => cover.match!),
  );
  return text === undefined ? undefined : text === null ? null : { text };
}

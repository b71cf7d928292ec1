import { GlobIndex } from '../glob/glob-index.js';
import { type RuleEntry, readsCompatibleText } from './rule-entry.js';
import { callsMayIntersect, type SampleCall, sampleCalls, toolMatches } from './sample-calls.js';
import { currentWorkBudget } from './work-budget.js';

/**
 * The rules that may cover others, indexed so a question about one rule
 * looks at the few rules that match a concrete call of it rather than at
 * every rule: rules without path by tool glob, rules with a path by the
 * glob of their match (per path). Lookups are exact (core's matcher
 * confirms each hit); only `overlapping` scans. Both are charged to the
 * running lint rule's work budget, so once it is spent they find fewer
 * rules (or none) and the question is left undecided.
 */
export class CoverIndex {
  private readonly byTool = new GlobIndex<RuleEntry>();
  private readonly byPath = new Map<string, GlobIndex<RuleEntry>>();

  constructor(readonly entries: readonly RuleEntry[]) {
    for (const entry of entries) {
      if (entry.path === null) {
        for (const alternative of new Set(entry.alternatives)) this.byTool.add(alternative, entry);
        continue;
      }
      const key = JSON.stringify(entry.path);
      let index = this.byPath.get(key);
      if (!index) {
        index = new GlobIndex<RuleEntry>();
        this.byPath.set(key, index);
      }
      index.add(entry.match ?? '*', entry);
    }
  }

  /** Rules (other than `subject`) that match this call of `subject`, ascending by index. */
  matching(subject: RuleEntry, call: SampleCall): RuleEntry[] {
    const found = new Map<number, RuleEntry>();
    for (const entry of this.byTool.matching(call.name)) found.set(entry.index, entry);
    if (subject.path !== null && call.text !== null) {
      const index = this.byPath.get(JSON.stringify(subject.path));
      for (const entry of index?.matching(call.text) ?? [])
        if (toolMatches(entry, call.name)) found.set(entry.index, entry);
    }
    found.delete(subject.index);
    return [...found.values()].sort((a, b) => a.index - b.index);
  }

  /** True when some rule (other than `subject`) matches this call of `subject`. */
  private anyMatching(subject: RuleEntry, call: SampleCall): boolean {
    if (this.byTool.some(call.name, (entry) => entry.index !== subject.index)) return true;
    if (subject.path === null || call.text === null) return false;
    const name = call.name;
    return (
      this.byPath
        .get(JSON.stringify(subject.path))
        ?.some(call.text, (entry) => entry.index !== subject.index && toolMatches(entry, name)) ??
      false
    );
  }

  /**
   * Rules that could imply `subject` on their own: those matching its first
   * sample call (a rule that misses one of its calls cannot cover it).
   */
  impliers(subject: RuleEntry): RuleEntry[] {
    const first = sampleCalls(subject)[0];
    return first ? this.matching(subject, first) : [];
  }

  /** A sample call of `subject` that no rule here matches, if there is one: proof it is not covered. */
  uncoveredSample(subject: RuleEntry): SampleCall | undefined {
    return sampleCalls(subject).find((call) => !this.anyMatching(subject, call));
  }

  /**
   * Every rule (other than `subject`) that may share a call with it and
   * reads compatible text: a scan, charged one unit per rule to the work
   * budget; undefined when the budget cannot pay for it.
   */
  overlapping(subject: RuleEntry): RuleEntry[] | undefined {
    const budget = currentWorkBudget();
    if (budget && !budget.spend(this.entries.length)) return undefined;
    return this.entries.filter(
      (entry) =>
        entry.index !== subject.index &&
        readsCompatibleText(subject, entry) &&
        callsMayIntersect(subject, entry),
    );
  }
}

import { type AuditRecord, visibleText, type Workspace } from '@airlock/sdk';
import { readLastDay } from './audit-day.js';
import { h } from './dom.js';
import type { PrincipalNames } from './principal-names.js';
import type { NameOf } from './story.js';

/** How far back the list reaches: one day. */
const DAY_MS = 24 * 60 * 60 * 1000;
/** Most records shown for one day: the newest. */
const MAX_RECORDS = 2000;

/** The decision words a person filters by. */
const OUTCOMES = [
  'approved',
  'denied',
  'answered',
  'retried',
  'granted',
  'parked',
  'expired',
  'canceled',
  'profile_declared',
  'contract_published',
  'overlay_replaced',
  'overlay_trusted',
  'rule_remembered',
  'contract_removed',
  'approval_policy_replaced',
  'retention_policy_replaced',
  'credential_created',
  'credential_relabelled',
  'credential_revoked',
  'agent_application_created',
  'agent_application_removed',
];

/**
 * The words the Outcome filter offers: the known ones, then any other the
 * day's records hold (an edit, one approval of several, a call a hook ran
 * unasked), so every row shown can be filtered to.
 */
export function outcomeChoices(records: readonly AuditRecord[]): string[] {
  const words = new Set(OUTCOMES);
  for (const record of records) words.add(record.decision);
  return [...words];
}

/** What a record is about: the tool of a call, or the document a change of policy touched. */
export function subjectWords(record: AuditRecord): string {
  if (record.policy) return `${record.policy.scope} ${record.policy.owner_id}`;
  return record.tool_name ?? '';
}

/** A record's detail; for a change of policy also its digests and the rule it saved. */
export function detailWords(record: AuditRecord): string {
  const policy = record.policy;
  if (!policy) return record.detail ?? '';
  const short = (digest: string | null) => (digest ? `${digest.slice(0, 19)}…` : 'none');
  // A credential or an application has no document to digest: its detail says what changed.
  const digests =
    policy.before_digest === null && policy.after_digest === null
      ? ''
      : `${short(policy.before_digest)} → ${short(policy.after_digest)}`;
  const parts = [record.detail ?? '', digests];
  if (policy.rule) parts.push(`rule ${JSON.stringify(policy.rule)}`);
  return parts.filter(Boolean).join('; ');
}

/** What a person may filter the list by; empty means any. */
export interface RecentFilter {
  run: string;
  tool: string;
  outcome: string;
  /** Only decisions this person made (their principal), or everyone's. */
  mine: boolean;
}

/** The records a filter keeps, newest first. */
export function filterRecords(
  records: readonly AuditRecord[],
  filter: RecentFilter,
  me: string | null,
): AuditRecord[] {
  const tool = filter.tool.trim().toLowerCase();
  const run = filter.run.trim();
  return records
    .filter((record) => !run || record.run_id === run)
    .filter((record) => !tool || subjectWords(record).toLowerCase().includes(tool))
    .filter((record) => !filter.outcome || record.decision === filter.outcome)
    .filter((record) => !filter.mine || (me !== null && record.principal === me))
    .sort((a, b) => b.seq - a.seq);
}

/** Who decided, in words: a person's name (or principal), or the rule, clock, hook or kernel. */
export function deciderWords(record: AuditRecord, nameOf: NameOf = () => null): string {
  if (record.decider === 'person') return nameOf(record.principal) ?? record.principal;
  if (record.decider === 'rule') {
    const rules = record.rule_indices.map((index) => `#${index}`).join(', ');
    const layer = (record.layer ?? 'approval_rules').replace('_', ' ');
    if (record.granted_by === 'mode') return 'the mode';
    if (record.granted_by === 'origin') return 'its origin';
    if (rules) return `rule ${rules} (${layer})`;
    // No declared rule matched: the mode decided, unless another layer did.
    return record.layer && record.layer !== 'approval_rules' ? `the ${layer}` : 'the mode';
  }
  return record.decider === 'clock' ? 'the park clock' : `the ${record.decider}`;
}

/**
 * What this person and the workspace decided in the last day, newest first,
 * filterable by run, tool and outcome. Reads the workspace's audit trail.
 */
export class RecentDecisionsView {
  private records: AuditRecord[] = [];
  private me: string | null = null;
  /** Said when the day held more records than the page keeps. */
  private cut = '';
  private readonly filter: RecentFilter = { run: '', tool: '', outcome: '', mine: false };
  private readonly status = h('p', { class: 'recent-status', role: 'status' }, 'Loading…');
  /** The Outcome filter: its choices are the known outcomes and those the day's records hold. */
  private readonly outcome = h(
    'select',
    { name: 'outcome' },
    h('option', { value: '' }, 'any'),
    ...OUTCOMES.map((word) => h('option', { value: word }, word)),
  );
  private readonly people = decisionTable('Decided by people, newest first', 'people');
  private readonly others = decisionTable(
    'Decided by rules, the mode, clocks, hooks and the kernel, newest first',
    'rules',
  );

  constructor(
    private readonly workspace: Workspace,
    private readonly names: PrincipalNames,
  ) {}

  /** The view's root element. */
  render(): HTMLElement {
    const text = (name: keyof RecentFilter & string, label: string) => {
      const input = h('input', { type: 'search', name, 'aria-label': label, placeholder: label });
      input.addEventListener('input', () => {
        (this.filter as unknown as Record<string, string>)[name] = input.value;
        this.draw();
      });
      return h('label', { class: 'filter' }, label, input);
    };
    const outcome = this.outcome;
    outcome.addEventListener('change', () => {
      this.filter.outcome = outcome.value;
      this.draw();
    });
    const mine = h('input', { type: 'checkbox', name: 'mine' });
    mine.addEventListener('change', () => {
      this.filter.mine = mine.checked;
      this.draw();
    });
    return h(
      'section',
      { class: 'recent-view', 'aria-labelledby': 'recent-title' },
      h('h2', { id: 'recent-title' }, 'Decided in the last day (calls and changes of policy)'),
      h(
        'div',
        { class: 'filters', role: 'group', 'aria-label': 'filters' },
        text('run', 'Run'),
        text('tool', 'Tool'),
        h('label', { class: 'filter' }, 'Outcome', outcome),
        h('label', { class: 'filter' }, mine, ' Only mine'),
      ),
      this.status,
      this.people.table,
      this.others.table,
    );
  }

  /** Reads the last day of the audit trail, keeping its newest records (see {@link readLastDay}). */
  async start(): Promise<void> {
    const naming = this.names.load();
    const since = Date.now() - DAY_MS;
    const day = await readLastDay((after, limit) => this.workspace.audit({ since, after, limit }), {
      keep: MAX_RECORDS,
      pageSize: 1000,
    });
    this.records = day.records;
    this.outcome.replaceChildren(
      h('option', { value: '' }, 'any'),
      ...outcomeChoices(this.records).map((word) => h('option', { value: word }, word)),
    );
    // A choice made while the day was read stays chosen.
    this.outcome.value = this.filter.outcome;
    // More than are shown: the status says the list is the newest part of the day.
    if (day.read > day.records.length || !day.complete) {
      this.cut = `the newest ${day.records.length} of ${day.read}${day.complete ? '' : '+'} read`;
    }
    this.me = (await this.workspace.self()).principal;
    await naming;
    this.draw();
  }

  /** Nothing to stop: the list is read once per visit. */
  stop(): void {}

  private draw(): void {
    const shown = filterRecords(this.records, this.filter, this.me);
    const people = shown.filter((record) => record.decider === 'person');
    const of = this.cut ? `${this.records.length} (${this.cut})` : `${this.records.length}`;
    this.status.textContent = `${shown.length} of ${of} decision(s) in the last day: ${people.length} by people, ${shown.length - people.length} by rules and the kernel.`;
    const row = (record: AuditRecord) => recordRow(record, this.names.of);
    this.people.body.replaceChildren(...people.map(row));
    this.others.body.replaceChildren(
      ...shown.filter((record) => record.decider !== 'person').map(row),
    );
  }
}

const COLUMNS = ['When', 'Run', 'Task', 'Tool or policy', 'Outcome', 'Decided by', 'Detail'];

/** One table of decisions with its caption; its body is filled by the view. */
function decisionTable(caption: string, kind: string) {
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'recent', 'data-deciders': kind },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...COLUMNS.map((title) => h('th', { scope: 'col' }, title)))),
    body,
  );
  return { table, body };
}

/** One decision as a table row; each cell names its column for narrow screens. */
function recordRow(record: AuditRecord, nameOf: NameOf): HTMLTableRowElement {
  const cells = [
    h('td', {}, new Date(record.at).toLocaleTimeString()),
    h(
      'td',
      { class: 'run-id' },
      record.run_id
        ? h('a', { href: `#/runs/${encodeURIComponent(record.run_id)}` }, record.run_id)
        : '—',
    ),
    h('td', {}, record.task_key ?? ''),
    // A tool's name and a reason are a model's or a person's text: hidden characters show as marks.
    h('td', {}, visibleText(subjectWords(record), { oneLine: true })),
    h('td', {}, record.decision),
    h('td', {}, deciderWords(record, nameOf)),
    h('td', {}, visibleText(detailWords(record))),
  ];
  for (const [i, cell] of cells.entries()) cell.setAttribute('data-label', COLUMNS[i] ?? '');
  return h('tr', { 'data-outcome': record.decision, 'data-decider': record.decider }, ...cells);
}

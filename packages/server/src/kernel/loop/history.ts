import type { FedResult, PastRound } from '../../providers/types.js';
import type { Reader } from '../../store/reader.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import { listFedTasks } from '../../store/tasks.js';
import { APPROVAL_EXPIRED_TEXT } from '../machines/task-states.js';

/** The text the model reads for one of its earlier calls. */
export function fedContent(task: TaskTable): string {
  switch (task.state) {
    case 'succeeded': {
      const result = task.result === null ? null : JSON.parse(task.result);
      return typeof result === 'string' ? result : JSON.stringify(result);
    }
    case 'timed_out':
      return APPROVAL_EXPIRED_TEXT;
    case 'canceled':
      return JSON.stringify({ error: { code: 'canceled', detail: 'the call was canceled' } });
    default:
      return JSON.stringify({
        error: { code: task.error_code ?? 'failed', detail: task.error_detail ?? '' },
      });
  }
}

/** The policy layers' reminders on a row's decision (shadow contracts, constraints), one per line. */
function reminderLines(task: TaskTable): string {
  if (task.decision === null) return '';
  const reminders = (JSON.parse(task.decision) as { reminders?: string[] }).reminders ?? [];
  return reminders.map((reminder) => `\n${reminder}`).join('');
}

/** For a call a person edited before approving it: the input it actually ran with. */
function editedLine(task: TaskTable): string {
  if (task.decision === null) return '';
  const { edited_by } = JSON.parse(task.decision) as { edited_by?: string };
  if (edited_by === undefined) return '';
  return `\nA person edited this call before approving it; it ran with this input instead: ${task.tool_input}`;
}

/** What the model reads for one row: a call's result (and its reminders), or a stop hook's feedback. */
function fedResult(task: TaskTable, run: RunTable): FedResult | null {
  if (task.kind !== 'hook') {
    return {
      task_key: task.key,
      tool_call_id: task.tool_call_id,
      tool_name: task.tool_name,
      tool_input: JSON.parse(task.tool_input),
      content: fedContent(task) + editedLine(task) + reminderLines(task),
    };
  }
  if (task.round > run.round) return null;
  const result = task.result ? (JSON.parse(task.result) as { structured_content?: unknown }) : null;
  const decision = result?.structured_content as { continue?: boolean; feedback?: string } | null;
  if (!decision?.continue || typeof decision.feedback !== 'string') return null;
  const answer = answerRead(task);
  return {
    task_key: task.key,
    tool_call_id: null,
    tool_name: task.tool_name,
    tool_input: {},
    content: decision.feedback,
    kind: 'feedback',
    ...(answer === null ? {} : { answer }),
  };
}

/**
 * The answer a stop hook read, from its input's preview: whole when the preview holds all
 * of it, else the preview and `…`; null when the input holds none.
 */
function answerRead(hook: TaskTable): string | null {
  const input = JSON.parse(hook.tool_input) as {
    output_preview?: unknown;
    output_size_bytes?: unknown;
  };
  if (typeof input.output_preview !== 'string') return null;
  const whole =
    typeof input.output_size_bytes !== 'number' ||
    Buffer.byteLength(input.output_preview, 'utf8') >= input.output_size_bytes;
  return whole ? input.output_preview : `${input.output_preview}…`;
}

function keyNumber(key: string): number {
  return Number.parseInt(key.slice(1), 10);
}

/**
 * Every round the model has read, by round number: results and stop-hook feedback, and
 * what the model wrote alongside the round's calls.
 */
export async function readRounds(reader: Reader, run: RunTable): Promise<Map<number, PastRound>> {
  if (run.round === 0) return new Map();
  return roundsOf(await listFedTasks(reader, run.id), run);
}

/** The fed rows of a run by round, each round's in key order, with the round's text. */
function roundsOf(tasks: TaskTable[], run: RunTable): Map<number, PastRound> {
  const byRound = new Map<number, PastRound>();
  // A stop hook's continuation feedback is read in the round it opened.
  tasks.sort((a, b) => a.round - b.round || keyNumber(a.key) - keyNumber(b.key));
  for (const task of tasks) {
    const fed = fedResult(task, run);
    if (!fed) continue;
    const past = byRound.get(task.round) ?? { round: task.round, results: [] };
    past.results.push(fed);
    // Kept on the round's first row (store/round-text.ts); absent on rows from before it.
    if (typeof task.assistant_text === 'string' && past.text === undefined) {
      past.text = task.assistant_text;
    }
    byRound.set(task.round, past);
  }
  return byRound;
}

/**
 * What the model reads of its current round alone (the `fed` of
 * readHistory), read without the rounds before it: for a run whose loop is
 * outside the kernel, which never sends the history anywhere.
 */
export async function readCurrentRound(reader: Reader, run: RunTable): Promise<FedResult[]> {
  if (run.round === 0) return [];
  const tasks = await listFedTasks(reader, run.id, run.round);
  tasks.sort((a, b) => keyNumber(a.key) - keyNumber(b.key));
  return tasks.flatMap((task) => fedResult(task, run) ?? []);
}

/** The note that stands for the rounds a compaction replaced. */
export function summaryRound(run: RunTable): PastRound | null {
  if (run.summary === null) return null;
  return {
    round: run.summary_through_round,
    results: [
      {
        task_key: `summary:${run.compactions}`,
        tool_call_id: null,
        tool_name: 'summary',
        tool_input: {},
        content: run.summary,
        kind: 'summary',
      },
    ],
  };
}

/** What the model reads next: its history, this round's results, and how its rounds ended. */
export interface RunReading {
  history: PastRound[];
  fed: FedResult[];
  /** How many rounds in a row, up to this one, asked only for calls that were refused. */
  refusedInARow: number;
}

/**
 * The failures of a call refused before it ran: by the approval stage or a
 * person (`approval_denied`), or an `ask` whose question was malformed
 * (`invalid_question`), which no person ever sees.
 */
const REFUSALS: readonly (string | null)[] = ['approval_denied', 'invalid_question'];

/**
 * How many of the run's latest rounds in a row asked only for calls that
 * were refused ({@link REFUSALS}); a round with no call of the model's (a
 * stop hook's continuation) ends the count.
 */
function refusedRoundsInARow(tasks: readonly TaskTable[], run: RunTable): number {
  const refused = new Map<number, boolean>();
  for (const task of tasks) {
    if (task.origin !== 'model') continue;
    const denied = task.state === 'failed' && REFUSALS.includes(task.error_code);
    refused.set(task.round, (refused.get(task.round) ?? true) && denied);
  }
  let count = 0;
  for (let round = run.round; round > 0 && refused.get(round) === true; round -= 1) count += 1;
  return count;
}

/**
 * What the model has read so far: every round after the last compaction (the
 * summary that replaced the older ones comes first), and this round's results.
 */
export async function readHistory(reader: Reader, run: RunTable): Promise<RunReading> {
  const tasks = run.round === 0 ? [] : await listFedTasks(reader, run.id);
  const refusedInARow = refusedRoundsInARow(tasks, run);
  const byRound = roundsOf(tasks, run);
  const history = [...byRound.values()].filter((past) => past.round > run.summary_through_round);
  const summary = summaryRound(run);
  if (summary) history.unshift(summary);
  return { history, fed: byRound.get(run.round)?.results ?? [], refusedInARow };
}

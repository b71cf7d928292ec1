import { taskVersion } from '../kernel/views.js';
import { lockNotice } from '../store/notice-locks.js';
import {
  type DeliveryRow,
  enqueueDeliveries,
  findDelivery,
  hastenDelivery,
  listTaskDeliveries,
  type NewDelivery,
  scheduleRedelivery,
  type TaskDelivery,
} from '../store/notifications.js';
import { principalRoster } from '../store/principal-roster.js';
import type { Reader } from '../store/reader.js';
import type { PendingEvent, Store, Tx } from '../store/store.js';
import { findTask } from '../store/tasks.js';
import { asksAPerson } from './routing.js';

/**
 * Settling a Slack notice: once the call it asked about stops waiting, however
 * that happened (a press in this message or another channel's, the inbox, the
 * CLI, the SDK, an email link, the 24 h clock, the run's end), the message loses
 * its buttons and says what became of the call. Each settle is a delivery of its
 * own in the outbox (kind `message.settled`), written in the same transaction as
 * the event that ended the wait, retried like any notice, and in the run's story.
 */

/** The delivery kind of a settle. */
export const MESSAGE_SETTLED = 'message.settled';

/**
 * A settle's payload: which notice's message, and the line it now ends with. With `message`
 * (`channel:ts`), it retires that earlier message of a notice sent again (retire-later.ts):
 * not a settle of the notice, whose own settle still reaches its newest message.
 */
export interface SettlePayload {
  type: `airlock.${typeof MESSAGE_SETTLED}`;
  timestamp: string;
  data: { workspace_id: string; notice_id: string; outcome: string; message?: string };
}

/** The events that can end a row's wait. */
const SETTLING_EVENTS = new Set([
  'task.approved',
  'task.denied',
  'task.resolved',
  'task.expired',
  'task.canceled',
  'task.edited',
]);

/**
 * Whether an event leaves a row's Slack messages nothing to ask: it ended the
 * wait, or the park was readdressed (its version moved, and it is posted anew).
 */
function settlesMessages(event: PendingEvent): boolean {
  if (SETTLING_EVENTS.has(event.type)) return true;
  return event.type === 'task.readdressed' && dataOf(event).state === 'needs_approval';
}

type Names = ReadonlyMap<string, string>;

/** Whether a delivery is a Slack notice with buttons: a message a settle updates. */
function isSlackQuestion(delivery: Pick<DeliveryRow, 'channel_kind' | 'event_type'>): boolean {
  return delivery.channel_kind === 'slack' && asksAPerson(delivery.event_type);
}

/** The notice a delivery settles, when it is a settle. */
export function settledNotice(delivery: TaskDelivery): string | undefined {
  if (delivery.event_type !== MESSAGE_SETTLED) return undefined;
  const { data } = JSON.parse(delivery.payload) as SettlePayload;
  return data.message === undefined ? data.notice_id : undefined;
}

/** An event's data as the settle reads it, whatever its type declares. */
function dataOf(event: PendingEvent): Record<string, unknown> {
  return (event.data ?? {}) as Record<string, unknown>;
}

function who(event: PendingEvent, names: Names): string {
  const data = dataOf(event);
  const by = typeof data.decided_by === 'string' ? data.decided_by : event.principal;
  const name = by ? (names.get(by) ?? by) : 'someone';
  return typeof data.via === 'string' ? `${name} via ${data.via}` : name;
}

/** How a settled line says the call waits again, in a notice its channel is sent. */
const IN_A_NEW_MESSAGE = 'waits in a new message';

/** The same, for a channel the call waiting again is not sent to (its `when` no longer takes it). */
const NOT_IN_THIS_CHANNEL = 'waits in the Airlock inbox (it is not posted in this channel again)';

/**
 * The settles of a unit of work, each pointing at a new message only where its
 * channel is sent one: a call edited (its action tags changed with its input)
 * may wait again unposted in a channel whose `when` took it before.
 */
export function pointingAtNotices(
  settles: readonly NewDelivery[],
  notices: readonly NewDelivery[],
): NewDelivery[] {
  return settles.map((settle) => {
    const payload = settle.payload as SettlePayload;
    if (!payload.data.outcome.endsWith(IN_A_NEW_MESSAGE)) return settle;
    const posted = notices.some(
      (notice) =>
        notice.channel === settle.channel &&
        notice.run_id === settle.run_id &&
        notice.task_key === settle.task_key &&
        asksAPerson(notice.event_type),
    );
    if (posted) return settle;
    const outcome = `${payload.data.outcome.slice(0, -IN_A_NEW_MESSAGE.length)}${NOT_IN_THIS_CHANNEL}`;
    return { ...settle, payload: { ...payload, data: { ...payload.data, outcome } } };
  });
}

/** The line a settled message ends with, for the event that ended its call's wait. */
export function settledLine(event: PendingEvent, names: Names): string {
  const data = dataOf(event);
  switch (event.type) {
    case 'task.approved':
      return `Approved by ${who(event, names)}`;
    case 'task.denied':
      return `Denied by ${who(event, names)}`;
    case 'task.resolved':
      return `${data.outcome === 'failed' ? 'Declined' : 'Answered'} by ${who(event, names)}`;
    case 'task.expired':
      return 'Expired: nobody decided in time';
    case 'task.edited':
      return data.outcome === 'parked'
        ? `Edited by ${who(event, names)}: the edited call ${IN_A_NEW_MESSAGE}`
        : `Edited by ${who(event, names)}`;
    case 'task.readdressed':
      return `Its executor was revoked: the call ${IN_A_NEW_MESSAGE}`;
    default:
      return typeof data.decided_by === 'string'
        ? `Canceled by ${who(event, names)}`
        : 'Canceled: the run ended or was stopped';
  }
}

/**
 * The settles a unit of work's events call for: for each row whose wait an event
 * ended (the unit's last such event speaks for it), one per Slack notice of the
 * row not yet settled. A notice still pending is settled too: its settle waits
 * until it is posted (see {@link settleTarget}). So is a dead-lettered one: its
 * settle has nothing to update, until a person redelivers the notice
 * ({@link settleAgainOnRedelivery}).
 */
export async function settlesFor(
  tx: Tx,
  events: readonly PendingEvent[],
  slackWorkspaces: ReadonlySet<string>,
): Promise<NewDelivery[]> {
  const last = new Map<string, PendingEvent & { task_key: string }>();
  for (const event of events) {
    if (!event.task_key || !settlesMessages(event)) continue;
    if (!slackWorkspaces.has(event.workspace_id)) continue;
    last.set(`${event.run_id}\u0000${event.task_key}`, { ...event, task_key: event.task_key });
  }
  const settles: NewDelivery[] = [];
  const rosters = new Map<string, Names>();
  for (const event of last.values()) {
    const deliveries = await listTaskDeliveries(tx, event.run_id, event.task_key);
    const settled = new Set(deliveries.map(settledNotice));
    const open = deliveries.filter(
      (delivery) => isSlackQuestion(delivery) && !settled.has(delivery.id),
    );
    if (open.length === 0) continue;
    let names = rosters.get(event.workspace_id);
    if (!names) {
      names = (await principalRoster(tx, event.workspace_id)).names;
      rosters.set(event.workspace_id, names);
    }
    const outcome = settledLine(event, names);
    for (const notice of open) {
      const payload: SettlePayload = {
        type: `airlock.${MESSAGE_SETTLED}`,
        timestamp: new Date(tx.now).toISOString(),
        data: { workspace_id: event.workspace_id, notice_id: notice.id, outcome },
      };
      settles.push({
        workspace_id: event.workspace_id,
        run_id: event.run_id,
        task_key: event.task_key,
        event_type: MESSAGE_SETTLED,
        channel: notice.channel,
        channel_kind: 'slack',
        payload,
      });
    }
  }
  return settles;
}

/** The posted message a settle updates, with the notice it was built from. */
export interface SettleTarget {
  /** The Slack channel and message timestamp of the notice. */
  where: { channel: string; ts: string };
  noticeId: string;
  /** The notice's payload as posted (its message is rebuilt from it). */
  noticePayload: string;
  outcome: string;
  /** An earlier message retired (one Slack no longer has is skipped), not the notice's settle. */
  retire?: true;
}

/**
 * A settle whose notice is not posted yet: it waits, without counting an
 * attempt, until after the notice's next attempt (sooner once the notice is
 * posted: {@link hastenSettlesOf}).
 */
export class NoticeNotPosted extends Error {
  constructor(
    noticeId: string,
    /** When the notice is due again (in the past while it is being sent). */
    readonly noticeDueAt: number,
  ) {
    super(`notice ${noticeId} is not posted yet: its message is settled once it is`);
  }
}

/**
 * What a settle updates, read when it is sent: undefined when there is nothing
 * to update (the notice was never posted, or pruned). A notice dead-lettered
 * when sent again keeps the message it was posted as before, live: that one.
 * @throws NoticeNotPosted while the notice is not posted yet.
 */
export async function settleTarget(
  reader: Reader,
  settle: { workspace_id: string; payload: string },
): Promise<SettleTarget | undefined> {
  const { data } = JSON.parse(settle.payload) as SettlePayload;
  const notice = await findDelivery(reader, settle.workspace_id, data.notice_id);
  if (notice && data.message !== undefined) {
    const { outcome } = data;
    return {
      where: messageAt(data.message),
      noticeId: notice.id,
      noticePayload: notice.payload,
      outcome,
      retire: true,
    };
  }
  if (notice?.state === 'pending') throw new NoticeNotPosted(notice.id, notice.next_attempt_at);
  if (!notice?.external_ref) return undefined;
  return {
    where: messageAt(notice.external_ref),
    noticeId: notice.id,
    noticePayload: notice.payload,
    outcome: data.outcome,
  };
}

/** A posted message's place, from the `channel:ts` its notice keeps. */
function messageAt(externalRef: string): { channel: string; ts: string } {
  const split = externalRef.indexOf(':');
  return { channel: externalRef.slice(0, split), ts: externalRef.slice(split + 1) };
}

/** The line a notice's earlier message ends with once the notice is posted again. */
export const SENT_AGAIN = 'Sent again as a newer message in this channel';

/**
 * The message a Slack notice with buttons was posted as before, when it is
 * being sent again (a redelivery): once the new one is posted, that message is
 * retired, its buttons taken away and pointing at the new one, so each notice
 * has one message a person can press and its settle reaches that one (until
 * then it stays as it was: a repost Slack never takes leaves it live). Undefined on a first send
 * and for a notice without buttons.
 */
export function earlierMessage(
  notice: Pick<DeliveryRow, 'id' | 'event_type' | 'channel_kind' | 'external_ref' | 'payload'>,
): SettleTarget | undefined {
  if (!isSlackQuestion(notice) || !notice.external_ref) return undefined;
  return {
    where: messageAt(notice.external_ref),
    noticeId: notice.id,
    noticePayload: notice.payload,
    outcome: SENT_AGAIN,
  };
}

/** A notice as the settle helpers below find it. */
type NoticeRef = Pick<
  DeliveryRow,
  'id' | 'workspace_id' | 'run_id' | 'task_key' | 'event_type' | 'channel_kind'
>;

/** The row a Slack notice with buttons asked about; undefined for any other delivery. */
function rowOfQuestion(notice: NoticeRef): { run_id: string; task_key: string } | undefined {
  if (!isSlackQuestion(notice) || !notice.run_id || !notice.task_key) return undefined;
  return { run_id: notice.run_id, task_key: notice.task_key };
}

/** The latest settle of a notice among the deliveries of its row. */
function latestSettle(deliveries: readonly TaskDelivery[], noticeId: string) {
  return deliveries.findLast((delivery) => settledNotice(delivery) === noticeId);
}

/**
 * Sends a notice's settle again, after whatever reached its message since:
 * a settle already sent (or dead) is made due again; one being sent right now
 * may have read the message as it was, so a fresh settle follows it; one not
 * started yet will read the message as it is then. The notice is locked first,
 * so two kernels doing this at once take turns and the second finds the
 * first's fresh settle instead of adding its own. True when one was made due.
 */
async function settleAgain(
  tx: Tx,
  row: { run_id: string; task_key: string },
  noticeId: string,
): Promise<boolean> {
  await lockNotice(tx, noticeId);
  const settle = latestSettle(await listTaskDeliveries(tx, row.run_id, row.task_key), noticeId);
  // None yet: the settle to come reads the message as it is then.
  if (!settle) return false;
  if (settle.state !== 'pending') {
    return (await scheduleRedelivery(tx, settle.workspace_id, settle.id)) === 'scheduled';
  }
  if (settle.lease_until === null || settle.lease_until <= tx.now) return false;
  await enqueueDeliveries(tx, [
    {
      workspace_id: settle.workspace_id,
      run_id: row.run_id,
      task_key: row.task_key,
      event_type: MESSAGE_SETTLED,
      channel: settle.channel,
      channel_kind: 'slack',
      payload: {
        ...(JSON.parse(settle.payload) as SettlePayload),
        timestamp: new Date(tx.now).toISOString(),
      },
    },
  ]);
  return true;
}

/**
 * When a person redelivers a Slack notice whose call already stopped waiting,
 * its settle is made due again too: it waits for the new message and settles
 * it, so the message posted anew does not keep live buttons.
 */
export async function settleAgainOnRedelivery(tx: Tx, notice: NoticeRef): Promise<void> {
  const row = rowOfQuestion(notice);
  if (row) await settleAgain(tx, row, notice.id);
}

/**
 * Once a Slack notice with buttons is posted, its settles that wait for it
 * (its call was decided meanwhile) are due at once instead of at their next
 * try.
 */
export async function hastenSettlesOf(tx: Tx, notice: NoticeRef): Promise<void> {
  const row = rowOfQuestion(notice);
  if (!row) return;
  for (const delivery of await listTaskDeliveries(tx, row.run_id, row.task_key)) {
    if (settledNotice(delivery) === notice.id) await hastenDelivery(tx, delivery.id);
  }
}

/**
 * After a press put quorum progress on its message (buttons kept): when the
 * call changed meanwhile (decided, or edited to a new version), the message's
 * settle may have reached Slack before that update did and been overwritten by
 * it. The settle is then sent again, after the update. True when it was.
 */
export async function settleAgainIfChanged(
  store: Store,
  notice: {
    workspace_id: string;
    run_id: string;
    task_key: string;
    delivery_id: string;
    version: string;
  },
): Promise<boolean> {
  return store.transaction(async (tx) => {
    const row = await findTask(tx, notice.run_id, notice.task_key);
    if (!row || taskVersion(row) === notice.version) return false;
    const at = { run_id: notice.run_id, task_key: notice.task_key };
    return settleAgain(tx, at, notice.delivery_id);
  });
}

import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { isLoopbackHost, type TaskView, visibleText } from '@airlock/core';
import nodemailer, { type Transporter } from 'nodemailer';
import { ACTION_LINK_PATH, signActionLink } from './action-links.js';
import type { EmailChannelConfig } from './config.js';
import { PartlySent } from './partly-sent.js';
import { headline, type NotificationPayload } from './payload.js';
import { shownWithin } from './shown-text.js';
import { checkResolvedHost, pinnedLookup, type Resolve } from './target-address.js';

/** A model's text on one visible line (a tool name, an option). */
function oneLine(text: string): string {
  return visibleText(text, { oneLine: true });
}

/**
 * A model's text of several lines, each indented under its label as the call's input is, so
 * that none reads as a line of the notice itself (`Approve: https://…`).
 */
function indented(text: string): string[] {
  return visibleText(text)
    .split('\n')
    .map((line) => `  ${line}`);
}

function describeTask(task: TaskView): string[] {
  const lines = [`Tool: ${oneLine(task.tool_name)}`];
  if (task.prompt) lines.push('Question:', ...indented(task.prompt));
  if (task.options) lines.push(`Options: ${task.options.map(oneLine).join(' | ')}`);
  // Hidden characters and padding as marks: what a person reads is what runs.
  lines.push('Input:', visibleText(JSON.stringify(task.tool_input, null, 2) ?? 'null'));
  const profile = task.effect_profile;
  if (profile) {
    lines.push(
      `Action tags: ${profile.action_tags.join(', ') || 'none'}`,
      // Targets are read from the model's input: each on the line, shown like it.
      `Targets: ${profile.targets.map((target) => shownWithin(target, 200, { oneLine: true })).join(', ') || 'none'}`,
      `Mode: ${profile.mode}`,
    );
  }
  if (task.deadline_at !== null) {
    lines.push(`Waits until: ${new Date(task.deadline_at).toISOString()}`);
  }
  return lines;
}

/**
 * The plain-text body of a notice's email, with its action links when the channel has them;
 * a notice whose call no longer waits (`noLongerAsks`, notice-standing.ts) says so first.
 */
export function emailText(
  payload: NotificationPayload,
  links: { approve: string; deny: string } | null,
  noLongerAsks?: string | undefined,
): string {
  const lines = [headline(payload), ''];
  if (noLongerAsks !== undefined) lines.unshift(`No longer waiting: ${noLongerAsks}.`, '');
  const task = payload.data.task;
  if (task) lines.push(...describeTask(task), '');
  lines.push(`Run: ${payload.data.run.id}`);
  if (payload.data.card_url) lines.push(`Open it in the inbox: ${payload.data.card_url}`);
  if (links) {
    lines.push(
      '',
      'Or decide from here (single use: once you approve or deny, both links are spent):',
      `Approve: ${links.approve}`,
      `Deny: ${links.deny}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/** How long connecting to the SMTP server may take. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * nodemailer's `getSocket`: a connection to `host` that may use only `addresses`, checked
 * before (each tried in turn, as nodemailer would), handed over connected. The host stays a
 * name, so that nodemailer asks TLS for it (SNI and the certificate check).
 */
function pinnedSocket(
  host: string,
  port: number,
  addresses: readonly string[],
): (options: unknown, callback: (error: Error | null, socketOptions?: object) => void) => void {
  return (_options, callback) => {
    const socket = connect({ host, port, lookup: pinnedLookup(addresses), autoSelectFamily: true });
    const timer = setTimeout(
      () => socket.destroy(Object.assign(new Error('Connection timeout'), { code: 'ETIMEDOUT' })),
      CONNECT_TIMEOUT_MS,
    );
    const failed = (error: Error) => {
      clearTimeout(timer);
      callback(error);
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', failed);
      callback(null, { connection: socket });
    });
  };
}

/**
 * Sends notices over SMTP with nodemailer. Each attempt resolves `smtp.host` itself, refuses a
 * link-local answer as a webhook's (target-address.ts), and connects to the addresses checked,
 * the configured name kept for TLS (SNI and the certificate check): left to nodemailer, the
 * name would be looked up again, unchecked.
 */
export class EmailSender {
  /** `resolve` is the SMTP host's name lookup (for tests). */
  constructor(
    private readonly channel: EmailChannelConfig,
    private readonly resolve?: Resolve | undefined,
  ) {}

  /** A transport for one attempt: to the `pinned` addresses when the host is a name. */
  private transportTo(pinned: readonly string[] | null): Transporter {
    const { smtp } = this.channel;
    const secure = smtp.secure ?? smtp.port === 465;
    return nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure,
      // The password and the action links never cross the network in clear text, unless asked.
      requireTLS: !secure && smtp.allow_plaintext !== true && !isLoopbackHost(smtp.host),
      ...(smtp.user && smtp.password
        ? { auth: { user: smtp.user, pass: smtp.password.value } }
        : {}),
      ...(pinned === null ? {} : { getSocket: pinnedSocket(smtp.host, smtp.port, pinned) }),
      connectionTimeout: CONNECT_TIMEOUT_MS,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  private linksFor(recipient: string, payload: NotificationPayload, publicUrl: string | undefined) {
    const links = this.channel.action_links;
    const task = payload.data.task;
    const member = links && memberOf(links.members, recipient);
    if (!links || !member || !publicUrl || !task || payload.type !== 'airlock.task.parked') {
      return null;
    }
    const base = `${publicUrl.replace(/\/+$/, '')}${ACTION_LINK_PATH}`;
    const claim = {
      workspace_id: payload.data.workspace_id,
      channel: this.channel.name,
      run_id: task.run_id,
      task_key: task.key,
      version: task.version,
      member,
      expires_at: task.deadline_at ?? 0,
    };
    return {
      approve: base + signActionLink(links.secret.value, { ...claim, action: 'approve' }),
      deny: base + signActionLink(links.secret.value, { ...claim, action: 'deny' }),
    };
  }

  /**
   * Sends the notice to every recipient at once (one message each: action
   * links are personal), so that one slow recipient does not hold back the
   * rest. `signal` cancels the sends still under way: their SMTP connections
   * close before the message's end, so the server keeps none of them.
   * Recipients in `reached` (an earlier attempt's) get nothing again.
   * @throws PartlySent when the SMTP server refuses a message, cannot be reached or `signal`
   *   aborts for some recipients: it names every recipient reached so far.
   * @throws Error before any message when `smtp.host` resolves to a link-local address or
   *   does not resolve (checkResolvedHost).
   */
  async send(
    deliveryId: string,
    payload: NotificationPayload,
    options: {
      publicUrl: string | undefined;
      signal?: AbortSignal | undefined;
      reached?: ReadonlySet<string> | undefined;
      /** What became of a call that no longer waits: said first, and no action links. */
      noLongerAsks?: string | undefined;
    },
  ): Promise<void> {
    const already = options.reached ?? new Set<string>();
    const recipients = distinct(this.channel.to).filter((recipient) => !already.has(recipient));
    const pinned = await checkResolvedHost(this.channel.smtp.host, this.resolve, options.signal);
    const transport = this.transportTo(pinned);
    const notice = { deliveryId, payload, ...options, transport };
    const sent = await Promise.allSettled(
      recipients.map((recipient) => this.sendTo(recipient, notice)),
    ).finally(() => transport.close());
    const refused = sent.flatMap((outcome, i) =>
      outcome.status === 'rejected' ? [`${recipients[i]}: ${messageOf(outcome.reason)}`] : [],
    );
    if (refused.length === 0) return;
    const reached = [...already, ...recipients.filter((_, i) => sent[i]?.status === 'fulfilled')];
    throw new PartlySent(`not sent to ${refused.join('; ')}`, reached);
  }

  private async sendTo(
    recipient: string,
    notice: {
      deliveryId: string;
      payload: NotificationPayload;
      publicUrl: string | undefined;
      signal?: AbortSignal | undefined;
      noLongerAsks?: string | undefined;
      transport: Transporter;
    },
  ): Promise<void> {
    const { deliveryId, payload } = notice;
    await notice.transport.sendMail({
      from: this.channel.from,
      to: recipient,
      // The headline is one visible line, and short: nothing of the model's starts a header.
      subject: `[Airlock] ${headline(payload)}`,
      // Links to a call that no longer waits would decide nothing: none are sent.
      text: emailText(
        payload,
        notice.noLongerAsks === undefined
          ? this.linksFor(recipient, payload, notice.publicUrl)
          : null,
        notice.noLongerAsks,
      ),
      // Lets a receiving system dedupe a notice sent again after a crash.
      messageId: `<${deliveryId}.${createHash('sha256').update(recipient).digest('hex').slice(0, 32)}@airlock>`,
      headers: { 'X-Airlock-Delivery': deliveryId },
      // nodemailer's SMTP transport closes the connection when it aborts.
      ...(notice.signal ? { signal: notice.signal } : {}),
    });
  }

  /** Nothing to close: each attempt's transport is closed when the attempt ends. */
  close(): void {}
}

/**
 * The member `members` maps a recipient to, its address matched in any case (as `to` is
 * read: `Alice@Example.com` is the `alice@example.com` of the map).
 */
function memberOf(
  members: Readonly<Record<string, string>>,
  recipient: string,
): string | undefined {
  if (Object.hasOwn(members, recipient)) return members[recipient];
  const key = recipient.toLowerCase();
  return Object.entries(members).find(([address]) => address.toLowerCase() === key)?.[1];
}

/**
 * The addresses of `to` with one listed twice (in any case: mail systems read them alike)
 * kept once, as first written, so nobody gets a notice twice.
 */
function distinct(to: readonly string[]): string[] {
  const seen = new Set<string>();
  return to.filter((address) => {
    const key = address.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

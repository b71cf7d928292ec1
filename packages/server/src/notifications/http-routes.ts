import type { IncomingMessage, ServerResponse } from 'node:http';
import { shortened, visibleText } from '@airlock/core';
import type { Logger } from 'pino';
import { readBody } from '../api/request-body.js';
import { sendError } from '../api/rest.js';
import { AirlockError } from '../errors.js';
import type { KernelContext } from '../kernel/context.js';
import { asStoreError } from '../store/store-errors.js';
import {
  ACTION_LINK_PATH,
  type ActionClaim,
  checkActionLink,
  peekActionLink,
} from './action-links.js';
import type { ChannelSenders } from './channel-senders.js';
import type { NotificationsConfig, SlackChannelConfig } from './config.js';
import { decideAsLink, LinkSpentError } from './link-decision-guard.js';
import { type LinkStanding, linkStanding } from './link-standing.js';
import { decideForMember, describeOutcome } from './member-decision.js';
import { handleSlackInteraction, slackUnsigned } from './slack-interactions.js';

/** Slack's interaction requests: `/notifications/slack/{workspace}/{channel}/interactions`. */
const SLACK_PATH = /^\/notifications\/slack\/([^/]+)\/([^/]+)\/interactions$/;
/** Interaction payloads and action-link forms are small. */
const BODY_LIMIT = 64 * 1024;

/**
 * One percent-encoded path segment, decoded.
 * @throws AirlockError invalid_input when it is not valid percent-encoding.
 */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AirlockError('invalid_input', 'a path segment is not valid percent-encoding');
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    // Its one button decides as a member: no other page may frame it, nor run anything in it.
    'content-security-policy':
      "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}

/** The page of a link that decides nothing now (used, or its call decided or changed): 409. */
function spentPage(res: ServerResponse, standing: LinkStanding & { open: false }): void {
  page(res, 409, standing.title, `<p>${escapeHtml(standing.text)}.</p>`);
}

/** The most of a call's input the confirmation page shows. */
const SHOWN_INPUT_CHARS = 8192;

/**
 * The call a link decides, as its confirmation shows it: the tool and its input, hidden
 * characters and padding as marks and the end of a long input kept (visibleText, shortened),
 * so what a person approves is what runs.
 */
function callHtml(row: { tool_name: string; tool_input: string }): string {
  const input = JSON.stringify(JSON.parse(row.tool_input), null, 2) ?? 'null';
  const shown = shortened(visibleText(input), SHOWN_INPUT_CHARS);
  return `<p>Tool <code>${escapeHtml(visibleText(row.tool_name, { oneLine: true }))}</code></p><pre>${escapeHtml(shown)}</pre>`;
}

/**
 * The HTTP routes of the notification channels: Slack's interaction
 * endpoint, and the email action links (a GET shows a confirmation form, so
 * a mail scanner that follows links decides nothing; its POST decides).
 * Answers true when it served the request.
 */
export function notificationRoutes(options: {
  ctx: KernelContext;
  config: NotificationsConfig;
  senders: ChannelSenders;
  logger: Logger;
}): (req: IncomingMessage, res: ServerResponse, url: URL) => boolean {
  const { ctx, config, senders, logger } = options;
  const slack = async (req: IncomingMessage, res: ServerResponse, match: RegExpExecArray) => {
    const [workspace, name] = [decodeSegment(match[1]!), decodeSegment(match[2]!)];
    const channel = config.channels.find(
      (c) => c.kind === 'slack' && c.workspace === workspace && c.name === name,
    );
    const body = (await readBody(req, BODY_LIMIT)).toString('utf8');
    // Answered as a bad signature, not 404: a caller without the secret learns no channel's name.
    if (channel?.kind !== 'slack') throw slackUnsigned();
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const answer = await handleSlackInteraction({
      ctx,
      channel,
      sender: await senders.slackSender(channel),
      logger,
      headers: {
        timestamp: header('x-slack-request-timestamp'),
        signature: header('x-slack-signature'),
      },
      body,
      slackChannel: (other) =>
        config.channels.find(
          (c): c is SlackChannelConfig =>
            c.kind === 'slack' && c.workspace === workspace && c.name === other,
        ),
    });
    res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(answer.body);
    await answer.followUp?.();
  };
  /** Shows how a link that decides nothing now stands, when it does not; answers whether it did. */
  const spentNow = async (res: ServerResponse, claim: ActionClaim): Promise<boolean> => {
    const standing = await linkStanding(ctx.store, claim);
    if (standing.open) return false;
    spentPage(res, standing);
    return true;
  };
  const action = async (req: IncomingMessage, res: ServerResponse, token: string) => {
    const claim = peekActionLink(token);
    const channel = claim
      ? config.channels.find(
          (c) =>
            c.kind === 'email' && c.workspace === claim.workspace_id && c.name === claim.channel,
        )
      : undefined;
    const links = channel?.kind === 'email' ? channel.action_links : undefined;
    const refused = links
      ? checkActionLink(links.secret.value, token, ctx.store.now())
      : 'bad_signature';
    // A link decides only as a member the channel maps a recipient to, whatever it was signed with.
    const mapped =
      links !== undefined && Object.values(links.members).includes(claim?.member ?? '');
    if (!claim || refused === 'bad_signature' || !mapped) {
      page(
        res,
        403,
        'This link is not valid',
        '<p>Open the call in the Airlock inbox instead.</p>',
      );
      return;
    }
    if (refused === 'expired') {
      page(res, 410, 'This link has expired', '<p>The call stopped waiting for a decision.</p>');
      return;
    }
    const verb = claim.action === 'approve' ? 'Approve' : 'Deny';
    // A used link, or one whose call was decided or changed since, decides nothing: it says why.
    const standing = await linkStanding(ctx.store, claim);
    if (!standing.open) {
      await readBody(req, BODY_LIMIT);
      spentPage(res, standing);
      return;
    }
    if (req.method === 'GET') {
      page(
        res,
        200,
        `${verb} this call?`,
        `<p>Run ${escapeHtml(claim.run_id)}, row ${escapeHtml(claim.task_key)}.</p>${callHtml(standing.row)}<form method="post"><button type="submit">${verb}</button></form>`,
      );
      return;
    }
    await readBody(req, BODY_LIMIT);
    try {
      const { value: outcome, approvalCounted } = await decideAsLink(claim, () =>
        decideForMember(ctx, {
          workspaceId: claim.workspace_id,
          memberCredentialId: claim.member,
          runId: claim.run_id,
          taskKey: claim.task_key,
          version: claim.version,
          action: claim.action,
          via: 'email',
        }),
      );
      // The kernel counts a member's approval once: a repeat that raced the first recorded nothing.
      if (claim.action === 'approve' && !approvalCounted && (await spentNow(res, claim))) return;
      const title = !outcome.decided
        ? 'Approval recorded'
        : claim.action === 'approve'
          ? 'Approved'
          : 'Denied';
      page(
        res,
        200,
        title,
        `<p>${escapeHtml(describeOutcome(claim.action, outcome, outcome.by))}.</p>`,
      );
    } catch (error) {
      // The other link, or another surface, decided first: say what happened, as a used link does.
      const lost =
        error instanceof LinkSpentError || (error instanceof AirlockError && error.status === 409);
      if (lost && (await spentNow(res, claim))) return;
      if (!(error instanceof AirlockError)) throw error;
      page(
        res,
        error.status,
        'Nothing was decided',
        `<p>${escapeHtml(error.detail)} (${error.code})</p>`,
      );
    }
  };
  return (req, res, url) => {
    const slackMatch = SLACK_PATH.exec(url.pathname);
    const isAction = url.pathname.startsWith(ACTION_LINK_PATH);
    if (!slackMatch && !isAction) return false;
    const methods = slackMatch ? ['POST'] : ['GET', 'POST'];
    const allowed = methods.includes(req.method ?? '');
    // A 405 names the methods served, as the API's do.
    if (!allowed) res.setHeader('allow', methods.join(', '));
    const served = !allowed
      ? Promise.reject(new AirlockError('method_not_allowed', `${req.method} is not served here`))
      : slackMatch
        ? slack(req, res, slackMatch)
        : action(req, res, url.pathname.slice(ACTION_LINK_PATH.length));
    served.catch((thrown: unknown) => {
      // A store that does not answer is a 503 to retry (with its retry-after), as on the API.
      const error = asStoreError(thrown);
      if (!(error instanceof AirlockError))
        logger.error({ err: error }, 'notification route failed');
      if (res.headersSent) return;
      sendError(
        res,
        error instanceof AirlockError ? error : new AirlockError('internal', 'internal error'),
      );
    });
    return true;
  };
}

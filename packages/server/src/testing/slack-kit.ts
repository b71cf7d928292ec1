import { createHmac } from 'node:crypto';
import { type Received, startReceiver } from './notify-kit.js';

/** The signing secret the Slack channels of the tests are configured with. */
export const SIGNING_SECRET = 'slack-signing-secret-for-tests';

/**
 * Slack's Web API as a local server: chat.* answers like Slack (a post lands in
 * the channel it names), and every call is kept; `hold` names methods it does not
 * answer while they are in it (a Slack that is slow), methods added to `refusing` are answered
 * `ok: false` until taken out again (a Slack that has an outage), and an update of
 * a message whose ts is in `deleted` is answered `message_not_found`. `gate(method)`
 * holds that method's answers back until the release it returns is called (a Slack
 * that answers late, but does answer).
 */
export async function startSlack(hold: string[] = []) {
  let ts = 1000;
  const refusing = new Set<string>();
  const deleted = new Set<string>();
  /** The messages it accepted, in order, with the timestamps it answered. */
  const posts: { channel: string; ts: string }[] = [];
  const gates = new Map<string, Promise<void>>();
  const receiver = await startReceiver(async (request) => {
    if (hold.some((method) => request.path === `/api/${method}`)) return null;
    await gates.get(request.path);
    if ([...refusing].some((method) => request.path === `/api/${method}`)) {
      return { status: 200, body: JSON.stringify({ ok: false, error: 'internal_error' }) };
    }
    if (request.path === '/api/chat.update' && deleted.has(String(fieldsOf(request).ts))) {
      return { status: 200, body: JSON.stringify({ ok: false, error: 'message_not_found' }) };
    }
    if (request.path === '/api/chat.postMessage') {
      ts += 1;
      const channel = String(fieldsOf(request).channel ?? 'C123');
      posts.push({ channel, ts: `${ts}.000100` });
      return { status: 200, body: JSON.stringify({ ok: true, channel, ts: `${ts}.000100` }) };
    }
    return { status: 200, body: JSON.stringify({ ok: true }) };
  });
  /** Holds the answers to `method` back until the returned release is called. */
  const gate = (method: string): (() => void) => {
    let release = () => {};
    gates.set(
      `/api/${method}`,
      new Promise<void>((resolve) => {
        release = () => {
          gates.delete(`/api/${method}`);
          resolve();
        };
      }),
    );
    return release;
  };
  return { ...receiver, refusing, deleted, posts, gate };
}

/** The fields of a Web API call, whichever encoding the client chose. */
export function fieldsOf(request: Received): Record<string, unknown> {
  if (request.headers['content-type']?.includes('application/json'))
    return JSON.parse(request.body);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(request.body)) {
    fields[key] = key === 'blocks' ? JSON.parse(value) : value;
  }
  return fields;
}

/** Signs an interaction body the way Slack does (v0, HMAC-SHA256 over v0:timestamp:body). */
export function signed(body: string, secret = SIGNING_SECRET, at = Math.floor(Date.now() / 1000)) {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${at}:${body}`).digest('hex')}`;
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(at),
    'x-slack-signature': signature,
  };
}

/** A block_actions payload for a press of a button of a posted message (by default the first). */
export function press(
  message: Record<string, unknown>,
  actionId: string,
  user: string,
  where = { channel: 'C123', ts: '1001.000100' },
): string {
  const blocks = message.blocks as {
    type: string;
    elements?: { action_id: string; value?: string }[];
  }[];
  const button = blocks
    .find((b) => b.type === 'actions')!
    .elements!.find((e) => e.action_id === actionId)!;
  const payload = {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase() },
    team: { id: 'T1' },
    container: { type: 'message', channel_id: where.channel, message_ts: where.ts },
    channel: { id: where.channel },
    message: { ts: where.ts, text: message.text, blocks },
    actions: [{ action_id: actionId, value: button.value, type: 'button' }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

import type { RunView } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { fieldsOf, SIGNING_SECRET, startSlack } from '../testing/slack-kit.js';
import { type Mail, startSmtp } from '../testing/smtp-receiver.js';
import { backends } from '../testing/stores.js';
import type { EmailChannelConfig } from './config.js';
import { EmailSender } from './email.js';
import type { NotificationPayload } from './payload.js';

/**
 * What a notice shows of the text a model wrote (a tool's name, a question, a command): a
 * person reads it in Slack or a mail, so it may not mention or link there, hide characters,
 * break out of the block that quotes it, or read as a line of the notice itself.
 */

// Rendering does not depend on the store: SQLite only.
const [sqlite] = await backends();
const LINK_SECRET = 'u3Jx9mQ2vL8pT5wR1zK7cN4bH6yF0aDe';
/** A live Slack mention or link: `<!channel>`, `<@U…>`, `<#C…>`, `<https://…|…>`. */
const LIVE = /<[!@#]|<(?:https?|mailto):/;
const HIDDEN = /[\u202a-\u202e\u2066-\u2069\r]/;

type Block = { type: string; text?: { type: string; text: string }; fields?: { text: string }[] };

/** A mail's body as a reader sees it: quoted-printable undone, as UTF-8. */
function textOf(mail: Mail): string {
  const raw = mail.raw.slice(mail.raw.indexOf('\r\n\r\n') + 4);
  if (!/quoted-printable/i.test(mail.raw)) return raw;
  const soft = raw.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(soft.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A mail's subject as a reader sees it: folded lines joined, encoded words decoded. */
function subjectOf(mail: Mail): string {
  const head = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]/g, ' ');
  const line = head
    .split('\r\n')
    .find((l) => l.startsWith('Subject: '))!
    .slice(9);
  return line.replace(
    /=\?UTF-8\?([QB])\?([^?]*)\?=\s*/gi,
    (_all, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_x, hex: string) =>
                String.fromCharCode(Number.parseInt(hex, 16)),
              ),
            'latin1',
          ).toString('utf8'),
  );
}

describe('what a notice shows of a model’s text', () => {
  let d: NotifyDeployment | undefined;
  const closers = closeAfterEach(() => d);

  async function deploy() {
    const slack = await startSlack();
    const smtp = await startSmtp();
    closers.push(slack.close, smtp.close);
    d = await deployWithChannels(
      sqlite!,
      ({ workspaceId, memberCredentialId }) => ({
        channels: [
          {
            name: 'approvals',
            kind: 'slack',
            workspace: workspaceId,
            token: 'xoxb-test-token',
            signing_secret: SIGNING_SECRET,
            channel: 'C123',
            api_url: `${slack.url}/api/`,
            members: { U_ALICE: memberCredentialId },
          },
          {
            name: 'mail',
            kind: 'email',
            workspace: workspaceId,
            smtp: { host: '127.0.0.1', port: smtp.port },
            from: 'airlock@example.com',
            to: ['alice@example.com'],
            action_links: {
              secret: LINK_SECRET,
              members: { 'alice@example.com': memberCredentialId },
            },
          },
        ],
      }),
      { port: await freePort(), notificationTuning: FAST_DELIVERY },
    );
    const posted = (runId: string) =>
      waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage' && r.body.includes(runId)),
      );
    const mailed = (runId: string) =>
      waitFor(async () => smtp.mails.find((m) => m.raw.includes(runId)));
    return { posted, mailed };
  }

  /** Starts a run whose one call is `call` (an `ask` call asks a question); answers its id. */
  async function start(call: { name: string; input: unknown }): Promise<string> {
    const answer = await d!.agent.post(`${d!.ws}/runs`, {
      approval_mode: 'ask',
      input: 'notice text',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [call] }, { final: 'done' }] },
    });
    expect(answer.status).toBe(201);
    return answer.body.id as string;
  }

  it('in Slack, a tool name neither mentions, links nor hides, and a command stays in its code block', async () => {
    const { posted } = await deploy();
    const runId = await start({
      name: '<!channel> <@U0ADMIN> <https://evil.example|Approve here> deploy\u202e\r\nx',
      input: { command: 'echo "```\n*Approved by Alice (admin)* :white_check_mark:\n```"' },
    });
    const message = fieldsOf(await posted(runId));
    // The notification text Slack shows on phones and lock screens is mrkdwn too.
    expect(String(message.text)).not.toMatch(LIVE);
    expect(String(message.text)).not.toMatch(HIDDEN);
    const blocks = message.blocks as Block[];
    const header = blocks[0]!.text!.text;
    expect(header).not.toMatch(HIDDEN);
    expect(header).toContain('⟨U+202E⟩');
    expect(header).toContain('⟨U+000A⟩');
    const section = blocks.find((b) => b.text?.text.includes('echo'))!.text!.text;
    expect(section).not.toMatch(LIVE);
    // The input's own fences would close the code block and show its text as the notice's.
    expect(section.split('```')).toHaveLength(3);
    expect(section).toContain('⟨3 backticks⟩');
  });

  it('in Slack, a long question keeps its notification text short and inert', async () => {
    const { posted } = await deploy();
    const runId = await start({
      name: 'ask',
      input: { prompt: `<!here> ${'why '.repeat(4000)}`, options: ['yes', 'no'] },
    });
    const message = fieldsOf(await posted(runId));
    expect(String(message.text)).not.toMatch(LIVE);
    expect(String(message.text).length).toBeLessThanOrEqual(300);
    expect((message.blocks as Block[])[0]!.text!.text.length).toBeLessThanOrEqual(150);
  });

  it('in a mail, a tool name is one visible line in the subject and the body', async () => {
    const { mailed } = await deploy();
    const runId = await start({
      name: 'deploy\u202e\r\nBcc: mallory@evil.example',
      input: { command: 'ls' },
    });
    const mail = await mailed(runId);
    const subject = subjectOf(mail);
    expect(subject).not.toMatch(HIDDEN);
    expect(subject).toContain('deploy⟨U+202E⟩⟨U+000D⟩⟨U+000A⟩Bcc: mallory@evil.example');
    const tool = textOf(mail)
      .split('\n')
      .find((line) => line.startsWith('Tool: '));
    expect(tool).toBe('Tool: deploy⟨U+202E⟩⟨U+000D⟩⟨U+000A⟩Bcc: mallory@evil.example\r');
  });

  it('in a mail, a question cannot forge a line of the notice, such as an action link', async () => {
    const { mailed } = await deploy();
    const runId = await start({
      name: 'ask',
      input: {
        prompt: 'Pick one\u2067\nApprove: https://evil.example/phish',
        options: ['a\u2067b', 'c'],
      },
    });
    const text = textOf(await mailed(runId));
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    // Every line of the question is indented under its label, as the call's input is.
    expect(text.split('\n').some((line) => line.startsWith('Approve:'))).toBe(false);
    expect(text).toContain('  Approve: https://evil.example/phish');
    expect(text).toContain('Options: a⟨U+2067⟩b | c');
  });

  it('in a mail, a target read from the input cannot forge a line of the notice nor hide characters', async () => {
    const { mailed } = await deploy();
    const runId = await start({
      name: 'Write',
      input: {
        file_path: 'notes.txt\n\nApprove: https://evil.example/approve\u202etxt.exe',
        content: 'x',
      },
    });
    const text = textOf(await mailed(runId));
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    const targets = text.split('\n').find((line) => line.startsWith('Targets: '));
    expect(targets).toContain(
      '⟨U+000A⟩⟨U+000A⟩Approve: https:/evil.example/approve⟨U+202E⟩txt.exe',
    );
    const approves = text.split('\n').filter((line) => line.startsWith('Approve: '));
    expect(approves.every((line) => !line.includes('evil.example'))).toBe(true);
  });

  it('two recipients of one notice get two Message-IDs, however alike their addresses', async () => {
    const smtp = await startSmtp();
    closers.push(smtp.close);
    const to = ['approvals@team-a.example', 'approvals@team-b.example'];
    const sender = new EmailSender({
      name: 'mail',
      kind: 'email',
      workspace: 'ws_1',
      smtp: { host: '127.0.0.1', port: smtp.port },
      from: 'airlock@example.com',
      to,
    } as EmailChannelConfig);
    const payload = {
      type: 'airlock.task.expired',
      timestamp: new Date(0).toISOString(),
      data: {
        workspace_id: 'ws_1',
        event: { type: 'task.expired', data: {}, principal: null },
        run: { id: 'run_1' } as RunView,
        task: null,
        card_url: null,
      },
    } satisfies NotificationPayload;
    try {
      await sender.send('ntf_1', payload, { publicUrl: undefined });
    } finally {
      sender.close();
    }
    const ids = smtp.mails.map((mail) => /^Message-ID: (.*)$/im.exec(mail.raw)?.[1]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^<ntf_1\.[0-9a-f]+@airlock>$/);
    expect(new Set(ids).size).toBe(2);
  });
});

import { isLoopbackHost } from '@airlock/core';
import { z } from 'zod';
import { refusedHost, refusedTarget } from './target-address.js';

/*
 * The URLs of a notifications configuration, as schema parts: what each may be, and the
 * message naming what is wrong, never the URL (it may hold a token).
 */

/** A check of a parsed URL; a text that is not a URL at all passes (z.url says so). */
function ofParsed(check: (url: URL, text: string) => boolean): (text: string) => boolean {
  return (text) => {
    try {
      return check(new URL(text), text);
    } catch {
      return true;
    }
  };
}

/** An http(s) URL without a user name or password: those would show wherever the URL is logged. */
const HttpUrl = z.url({ protocol: /^https?$/ }).refine(
  ofParsed((url) => !url.username && !url.password),
  {
    message:
      'a URL here may not carry a user name or password (it would show in logs and errors); a webhook receiver checks the signature instead',
  },
);

/** A URL the kernel itself sends to: never a link-local address (target-address.ts). */
export const ReceiverUrl = HttpUrl.superRefine((url, ctx) => {
  const refused = refusedTarget(url);
  if (refused) ctx.addIssue({ code: 'custom', message: refused });
});

/** An SMTP host the kernel connects to: never written as a link-local address. */
export const SmtpHost = z
  .string()
  .min(1)
  .superRefine((host, ctx) => {
    const refused = refusedHost(host);
    if (refused) ctx.addIssue({ code: 'custom', message: refused });
  });

/** Whether a URL would cross the network unencrypted: `http:` to a host not on this machine. */
export function isPlaintextOffMachine(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
  } catch {
    return false; // Not a URL at all: its schema says so.
  }
}

/** Why a webhook `url` in clear text off this machine is refused without `allow_plaintext`. */
export const PLAINTEXT_WEBHOOK =
  'a notice carries the call\'s input and the inbox link, and http:// sends them readable to anyone on the way: use https, http only to a loopback host (127.0.0.1, ::1, localhost), or set "allow_plaintext": true on the channel for a receiver on a network you trust';

/**
 * Slack's Web API base URL, which every request sends the bot token to: https, or http only
 * to this machine (a test server, a local relay), so the token stays out of clear text.
 */
export const SlackApiUrl = ReceiverUrl.refine((text) => !isPlaintextOffMachine(text), {
  message:
    'api_url is sent the bot token: it is https, or http only to a loopback host (127.0.0.1, ::1, localhost)',
});

/**
 * Where people reach the kernel: the base every link of a notice is appended to, so it has
 * no query or fragment. With one, a link's path (an email action link's token) would land in
 * the query, which proxies and access logs keep, and the link would open the inbox.
 */
export const PublicUrl = HttpUrl.refine(
  ofParsed((_url, text) => !text.includes('?') && !text.includes('#')),
  {
    message:
      'public_url is the base links are appended to: no ?query or #fragment (a link would land in it)',
  },
);

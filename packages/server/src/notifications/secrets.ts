import { createHash } from 'node:crypto';

/** The problem secretOf reports, in the shape of the configuration's problems. */
export interface MissingVariable {
  code: 'missing_environment_variable';
  pointer: string;
  message: string;
}

/*
 * The secrets of notification channels: read inline or from the
 * environment, shown only as a fingerprint, and checked for strength where a
 * weak one would let someone forge what the kernel signs.
 */

/** A secret with its value read: the value never leaves the process, the fingerprint may. */
export interface SecretValue {
  readonly value: string;
  /** `sha256:` and the first 12 hex digits of the value's SHA-256. */
  readonly fingerprint: string;
}

/** The fingerprint shown in place of a secret. */
export function fingerprint(value: string): string {
  return `sha256:${createHash('sha256').update(value).digest('hex').slice(0, 12)}`;
}

/**
 * Reads a secret written inline or as `{"env": NAME}`; an unset or empty
 * variable is a problem (the value is then empty).
 */
export function secretOf(
  raw: string | { env: string },
  pointer: string,
  env: NodeJS.ProcessEnv,
  problems: { push(problem: MissingVariable): unknown },
): SecretValue {
  const value = typeof raw === 'string' ? raw : env[raw.env];
  if (value === undefined || value === '') {
    const name = typeof raw === 'string' ? '' : raw.env;
    problems.push({
      code: 'missing_environment_variable',
      pointer,
      message: `the environment variable ${name} is not set (or empty)`,
    });
    return { value: '', fingerprint: '' };
  }
  return { value, fingerprint: fingerprint(value) };
}

/**
 * True when a webhook secret is `whsec_` and base64 of 24 to 64 bytes: the
 * Standard Webhooks specification's symmetric secret is at least 24 bytes
 * (192 bits) and at most 512 bits.
 */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith('whsec_')) return false;
  const body = value.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return false;
  const bytes = Buffer.from(body, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/** The shortest secret that signs email action links: `openssl rand -base64 32` gives 44 characters. */
export const ACTION_LINK_SECRET_MIN_LENGTH = 32;

/**
 * True when an email action link secret is long enough to resist guessing:
 * anyone holding one link can test guesses against its signature offline,
 * and the secret signs links that decide as any mapped member.
 */
export function isActionLinkSecret(value: string): boolean {
  return value.length >= ACTION_LINK_SECRET_MIN_LENGTH;
}

import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';

/*
 * Where the kernel refuses to send a notice. A webhook URL, a Slack api_url and an SMTP
 * host are connections the kernel makes on its own, so they could reach what only this machine can:
 * the cloud's instance metadata service (169.254.169.254, fd00:ec2::254), which hands out
 * the machine's credentials, and the rest of the link-local ranges. No receiver lives
 * there, so those addresses are refused, whether written in the URL or what its name
 * resolves to. Loopback and private ranges stay allowed: a kernel you run yourself
 * commonly posts to your own services on them, and the file is written by its operator.
 */

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a9fe:a9fe`) stands for, or null. */
function mappedIpv4(address: string): string | null {
  const match = /^::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/i.exec(address);
  if (!match) return null;
  if (match[3]) return match[3];
  const high = Number.parseInt(match[1]!, 16);
  const low = Number.parseInt(match[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * Whether an IP address is one the kernel never sends a notice to: link-local
 * (169.254.0.0/16, fe80::/10, where the cloud metadata service answers), or AWS's IPv6
 * metadata address. Not an IP address (a name): false.
 */
export function isRefusedAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  const v4 = isIP(bare) === 4 ? bare : isIP(bare) === 6 ? mappedIpv4(bare) : null;
  if (v4 !== null) return v4.startsWith('169.254.');
  if (isIP(bare) !== 6) return false;
  if (/^fe[89ab][0-9a-f]:/.test(bare)) return true;
  return bare === 'fd00:ec2::254';
}

/** Why the kernel refuses a URL's host as written (an address it never sends to), or null. */
export function refusedTarget(url: string): string | null {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return null; // Not a URL at all: its schema says so.
  }
  return refusedHost(hostname);
}

/** Why the kernel refuses a host as written (an SMTP host at a link-local address), or null. */
export function refusedHost(host: string): string | null {
  return isRefusedAddress(host)
    ? 'a link-local address (the cloud metadata service answers there) is never a receiver; name your receiver instead'
    : null;
}

/** Resolves a host name to its addresses (dns.lookup, every address). */
export type Resolve = (hostname: string) => Promise<string[]>;

const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Resolves a URL's host for a send and checks every address it names against the addresses
 * the kernel never sends to (a name such as `metadata.google.internal`). The answer is the
 * list the connection must use (pinned: see pinnedLookup), so that a name whose answer
 * changes between the check and the connection (DNS rebinding) cannot move the send to an
 * address that was never checked; null for a host written as an IP address.
 * `signal` ends a lookup that hangs (the attempt's deadline, a stop).
 * @throws Error naming the address when one is refused; `could not be reached (ENOTFOUND)`
 *   and the like when the name does not resolve; the signal's reason when it aborts first.
 */
export function checkResolvedTarget(
  url: string,
  resolve = systemResolve,
  signal?: AbortSignal | undefined,
): Promise<string[] | null> {
  return checkResolvedHost(new URL(url).hostname, resolve, signal);
}

/**
 * checkResolvedTarget for a host given alone (an email channel's `smtp.host`): the addresses
 * its connection must use, checked; null for a host written as an IP address.
 * @throws Error as checkResolvedTarget does.
 */
export async function checkResolvedHost(
  host: string,
  resolve = systemResolve,
  signal?: AbortSignal | undefined,
): Promise<string[] | null> {
  const hostname = host.replace(/^\[|\]$/g, '');
  if (isIP(hostname) !== 0) {
    if (isRefusedAddress(hostname)) throw refused(hostname);
    return null;
  }
  let addresses: string[];
  try {
    // A lookup sends nothing: one the attempt's cut ends is left to finish on its own.
    addresses = await untilAborted(resolve(hostname), signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw unresolved(error);
  }
  const bad = addresses.find(isRefusedAddress);
  if (bad !== undefined) throw refused(bad);
  const usable = addresses.filter((address) => isIP(address) !== 0);
  if (usable.length === 0) throw unresolved(null);
  return usable;
}

/** The `lookup` of a connection that may use only `addresses`, checked before: no second lookup. */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const first = entries[0]!;
    if ((options as { all?: boolean }).all) {
      (callback as (error: null, entries: LookupAddress[]) => void)(null, entries);
    } else {
      (callback as (error: null, address: string, family: number) => void)(
        null,
        first.address,
        first.family,
      );
    }
  };
}

function unresolved(error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  return new Error(
    `the receiver could not be reached (${typeof code === 'string' ? code : 'ENOTFOUND'})`,
  );
}

/** `promise`, or the signal's reason once it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function refused(address: string): Error {
  return new Error(
    `the receiver's address ${address} is link-local (where the cloud metadata service answers): the kernel never sends there`,
  );
}

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/*
 * Where the kernel refuses to send a notice. A webhook URL and a Slack api_url are
 * requests the kernel makes on its own, so they could reach what only this machine can:
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
  return isRefusedAddress(hostname)
    ? 'a link-local address (the cloud metadata service answers there) is never a receiver; name your receiver instead'
    : null;
}

/** Resolves a host name to its addresses (dns.lookup, every address). */
export type Resolve = (hostname: string) => Promise<string[]>;

const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Checks, before a send, that a URL's host name does not resolve to an address the kernel
 * never sends to (a name such as `metadata.google.internal`). A name that does not resolve is
 * left to the request, which fails with its own reason. What the request itself then
 * resolves is not pinned: a name whose answer changes between the two lookups escapes this.
 * `signal` ends a lookup that hangs (the attempt's deadline, a stop).
 * @throws Error naming the address when it does; the signal's reason when it aborts first.
 */
export async function checkResolvedTarget(
  url: string,
  resolve = systemResolve,
  signal?: AbortSignal | undefined,
): Promise<void> {
  const hostname = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(hostname) !== 0) {
    if (isRefusedAddress(hostname)) throw refused(hostname);
    return;
  }
  let addresses: string[];
  try {
    // A lookup sends nothing: one the attempt's cut ends is left to finish on its own.
    addresses = await untilAborted(resolve(hostname), signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    return;
  }
  const bad = addresses.find(isRefusedAddress);
  if (bad !== undefined) throw refused(bad);
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

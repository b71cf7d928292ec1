const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * Whether a host names this machine's loopback interface: `localhost`, an
 * address in 127.0.0.0/8, or `::1` (in brackets or not, any case). With
 * `localhostSubdomains`, also `*.localhost`, which browsers resolve to
 * loopback themselves (RFC 6761); leave it off where the host goes to the
 * system's resolver, which may send such a name elsewhere. The one place
 * Airlock decides what stays on the machine: plaintext SMTP, an MCP
 * gateway's browser origins, an unauthenticated metrics address.
 */
export function isLoopbackHost(
  host: string,
  options: { localhostSubdomains?: boolean } = {},
): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (options.localhostSubdomains === true && bare.endsWith('.localhost')) return true;
  const quad = IPV4.exec(bare);
  if (quad) return quad.slice(1).every((part) => Number(part) <= 255) && quad[1] === '127';
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

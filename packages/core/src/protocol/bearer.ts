/**
 * The token of an `Authorization: Bearer <token>` header, or null: the
 * scheme's name in any case (RFC 7235), one token, nothing after it but
 * blanks. Every door of the kernel and the MCP gateway reads credentials so.
 */
export function bearerTokenOf(header: string | null | undefined): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? null;
}

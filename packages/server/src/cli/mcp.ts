import { loadCommandPackage } from './optional-package.js';

/** The package that holds the MCP commands; kept out of the kernel's own dependencies. */
const MCP_PACKAGE = '@airlock/mcp/cli';

/**
 * `airlock executor mcp …` and `airlock gateway mcp …`: hands the words after
 * `mcp` to `@airlock/mcp`, loaded only now, so the kernel does not carry the
 * MCP SDK.
 * @throws OperatorError when `@airlock/mcp` is not installed or cannot load.
 */
export async function mcp(command: 'executor' | 'gateway', argv: string[]): Promise<number> {
  const loaded = await loadCommandPackage(MCP_PACKAGE, '@airlock/mcp', `airlock ${command} mcp`);
  return loaded.main([command, ...argv]);
}

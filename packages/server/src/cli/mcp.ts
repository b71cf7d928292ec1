import { OperatorError } from './operator/connection.js';

/** The package that holds the MCP commands; kept out of the kernel's own dependencies. */
const MCP_PACKAGE = '@airlock/mcp/cli';

/**
 * `airlock executor mcp …` and `airlock gateway mcp …`: hands the words after
 * `mcp` to `@airlock/mcp`, loaded only now, so the kernel does not carry the
 * MCP SDK.
 * @throws OperatorError when `@airlock/mcp` is not installed.
 */
export async function mcp(command: 'executor' | 'gateway', argv: string[]): Promise<number> {
  let loaded: { main(argv: readonly string[]): Promise<number> };
  try {
    // A specifier in a variable: the compiler does not follow it, so no project reference is needed.
    const specifier: string = MCP_PACKAGE;
    loaded = (await import(specifier)) as typeof loaded;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new OperatorError(
      `airlock ${command} mcp needs the @airlock/mcp package next to @airlock/server (npm install @airlock/mcp)`,
      2,
    );
  }
  return loaded.main([command, ...argv]);
}

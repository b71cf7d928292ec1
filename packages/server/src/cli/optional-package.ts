import { OperatorError } from './operator/operator-error.js';

/** The commands a package outside the kernel's own dependencies brings (`@airlock/mcp`, `@airlock/hooks`). */
export interface CommandPackage {
  main(argv: readonly string[]): Promise<number>;
}

/**
 * Loads `specifier` (`@airlock/mcp/cli`), a package the kernel does not depend on, only when its
 * command runs. `packageName` missing is a usage error saying to install it (exit 2); the package
 * there but failing to load (a dependency of its own missing, its build absent) says that
 * instead, with Node's reason, since installing it again is not what `npm install <it>` fixes
 * when it is already there.
 * @throws OperatorError when the package is absent or cannot load.
 */
export async function loadCommandPackage(
  specifier: string,
  packageName: string,
  command: string,
): Promise<CommandPackage> {
  try {
    return (await import(specifier)) as CommandPackage;
  } catch (error) {
    const code = (error as { code?: string } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
    const message = (error as Error).message;
    const missing = missingPackageOf(message);
    // Node names the package (`@airlock/mcp`); a loader in front of it may name the subpath.
    if (missing === packageName || missing?.startsWith(`${packageName}/`)) {
      throw new OperatorError(
        `${command} needs the ${packageName} package next to @airlock/server (npm install ${packageName})`,
        2,
      );
    }
    throw new OperatorError(
      `${command}: ${packageName} is installed but could not load: ${firstLine(message)} (reinstall ${packageName} and what it depends on)`,
      1,
    );
  }
}

/** The package Node says it could not find (`Cannot find package 'x' imported from …`), if any. */
function missingPackageOf(message: string): string | undefined {
  return /^Cannot find package '([^']+)'/.exec(message)?.[1];
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

import { OperatorError } from './operator/connection.js';

/** The package that holds the hooks commands; kept out of the kernel's own dependencies. */
const HOOKS_PACKAGE = '@airlock/hooks/cli';

/**
 * `airlock hooks install|uninstall|doctor …`: hands the words after `hooks`
 * to `@airlock/hooks`, loaded only now.
 * @throws OperatorError when `@airlock/hooks` is not installed.
 */
export async function hooks(argv: string[]): Promise<number> {
  let loaded: { main(argv: readonly string[]): Promise<number> };
  try {
    // A specifier in a variable: the compiler does not follow it, so no project reference is needed.
    const specifier: string = HOOKS_PACKAGE;
    loaded = (await import(specifier)) as typeof loaded;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new OperatorError(
      'airlock hooks needs the @airlock/hooks package next to @airlock/server (npm install @airlock/hooks)',
      2,
    );
  }
  return loaded.main(argv);
}

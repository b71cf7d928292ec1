import { loadCommandPackage } from './optional-package.js';

/** The package that holds the hooks commands; kept out of the kernel's own dependencies. */
const HOOKS_PACKAGE = '@airlock/hooks/cli';

/**
 * `airlock hooks install|uninstall|doctor …`: hands the words after `hooks`
 * to `@airlock/hooks`, loaded only now.
 * @throws OperatorError when `@airlock/hooks` is not installed or cannot load.
 */
export async function hooks(argv: string[]): Promise<number> {
  const loaded = await loadCommandPackage(HOOKS_PACKAGE, '@airlock/hooks', 'airlock hooks');
  return loaded.main(argv);
}

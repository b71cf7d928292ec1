import { installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';
import type { HookVariant } from './bench-variants.js';

/**
 * Airlock in front of the agent through `airlock hooks install` (a command hook per event, so a
 * tool call costs a pre-tool and a post-tool hook), with a kernel granting the bench's calls by a rule.
 */
export const airlockVariant: HookVariant = {
  name: 'airlock (rule grants)',
  kind: 'airlock',
  transport: 'command',
  async setup(sandbox) {
    const airlock = await startAirlockKernel();
    await airlock.setProfile({
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'Bash|run_shell_command', path: 'command', match: 'echo call-*', verdict: 'allow' },
      ],
    });
    installAirlockHooks(sandbox, airlock);
    return () => airlock.close();
  },
};

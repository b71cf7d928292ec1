import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

// The page's code is bundled by Vite, which does not type-check; tsc -b builds only the Node
// helper (so a server can depend on it without a project-reference cycle through the SDK).
it('type-checks the web page against the SDK (tsconfig.web.json)', { timeout: 120_000 }, () => {
  const path = join(import.meta.dirname, '..', 'tsconfig.web.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    path,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${path}`);
  const program = ts.createProgram(config.fileNames, config.options);
  // Only the page's own files: the SDK and the server are checked by their own builds.
  const problems = config.fileNames
    .flatMap((file) => ts.getPreEmitDiagnostics(program, program.getSourceFile(file)))
    .map((diagnostic) =>
      ts.formatDiagnostic(diagnostic, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => process.cwd(),
        getNewLine: () => '\n',
      }),
    );
  expect(config.fileNames.length).toBeGreaterThan(3);
  expect(problems).toEqual([]);
});

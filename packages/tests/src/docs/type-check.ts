import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT, type Sample, where } from './samples.js';

/** Where the samples pretend to live: inside packages/tests, so `@airlock/sdk` resolves. */
const SAMPLE_DIR = join(REPO_ROOT, 'packages', 'tests', 'src', 'docs', '__samples__');

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  customConditions: ['source'],
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  noEmit: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
};

/**
 * Type-checks TypeScript samples as they are written (each its own module,
 * importing the packages by name) and returns every diagnostic, located in
 * its docs page.
 */
export function typeCheck(samples: readonly Sample[]): string[] {
  const files = new Map(
    samples.map((sample, i) => [join(SAMPLE_DIR, `sample-${i}.ts`), sample] as const),
  );
  const host = ts.createCompilerHost(OPTIONS, true);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name)?.code ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.getSourceFile = (name, language, onError, create) => {
    const sample = files.get(name);
    return sample
      ? ts.createSourceFile(name, sample.code, language, true, ts.ScriptKind.TS)
      : getSourceFile(name, language, onError, create);
  };
  const program = ts.createProgram([...files.keys()], OPTIONS, host);
  const problems: string[] = [];
  for (const [name, sample] of files) {
    const source = program.getSourceFile(name);
    if (!source) {
      problems.push(`${where(sample)}: not compiled`);
      continue;
    }
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    for (const diagnostic of diagnostics) {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      problems.push(`${sample.page}:${sample.line + 1 + line}: ${message}`);
    }
  }
  return problems;
}

/** What the extension reads from its settings. */
export interface ExtensionSettings {
  /** Globs of the files the linter checks. */
  readonly files: readonly string[];
  /** A tool catalog passed as `--tools`, or empty for the config's. */
  readonly tools: string;
}

/**
 * The files checked when the settings name none: rule lists and profiles by
 * their suffix, and a repository's permission overlay (`rules-lint` checks
 * it as a project document).
 */
export const DEFAULT_FILES = [
  '**/*.rules.json',
  '**/*.rules.jsonc',
  '**/*.profile.json',
  '**/*.profile.jsonc',
  '**/.airlock/permissions.json',
] as const;

/** The command-line arguments of the bundled server (the client adds `--stdio`). */
export function serverArguments(settings: ExtensionSettings): string[] {
  return ['lsp', ...(settings.tools.trim() === '' ? [] : ['--tools', settings.tools.trim()])];
}

/** The document selector: every configured glob, on disk, as JSON or JSONC. */
export function documentSelector(
  settings: ExtensionSettings,
): { scheme: string; language: string; pattern: string }[] {
  const files = settings.files.length > 0 ? settings.files : DEFAULT_FILES;
  return files.flatMap((pattern) =>
    ['json', 'jsonc'].map((language) => ({ scheme: 'file', language, pattern })),
  );
}

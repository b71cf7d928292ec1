import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { ToolCatalog } from '../catalog/tool-catalog.js';
import { UsageError } from '../cli/cli-io.js';
import { isInside, realTarget } from '../cli/contained-path.js';
import { loadToolCatalog, requireDocument } from '../cli/load.js';
import { DEFAULT_CONFIG, type LintConfig, parseLintConfig } from './lint-config.js';

/** Names a config file may have, looked for in this order in each folder. */
export const CONFIG_NAMES = ['rules-lint.config.json', 'rules-lint.config.jsonc'] as const;

/** A config with its tool catalog loaded (a `tools` path read relative to the config). */
export interface LoadedConfig extends Omit<LintConfig, 'tools'> {
  readonly tools: ToolCatalog | undefined;
}

/**
 * Finds and loads configs for linted files: `--config FILE` when given,
 * else the nearest `rules-lint.config.json(c)` in the file's folder or any
 * folder above it, else the defaults. Loaded configs are remembered.
 */
export class ConfigFinder {
  private readonly byFolder = new Map<string, string | undefined>();
  private readonly loaded = new Map<string, LoadedConfig>();

  constructor(
    private readonly cwd: string,
    private readonly explicit: string | undefined,
  ) {}

  /** The config for a file (path relative to cwd). Throws UsageError when a config file is broken. */
  async forFile(file: string): Promise<LoadedConfig> {
    const path = this.explicit ?? this.nearest(dirname(resolve(this.cwd, file)));
    if (path === undefined) return { ...DEFAULT_CONFIG, tools: undefined };
    let config = this.loaded.get(path);
    if (!config) {
      config = await loadConfig(path, this.cwd);
      this.loaded.set(path, config);
    }
    return config;
  }

  private nearest(folder: string): string | undefined {
    if (this.byFolder.has(folder)) return this.byFolder.get(folder);
    let found: string | undefined;
    for (const name of CONFIG_NAMES) {
      if (existsSync(join(folder, name))) {
        found = join(folder, name);
        break;
      }
    }
    const parent = dirname(folder);
    if (found === undefined && parent !== folder) found = this.nearest(parent);
    this.byFolder.set(folder, found);
    return found;
  }
}

/**
 * Reads and checks one config file; its `tools` path must stay in the
 * config's folder or below it (no absolute path, no `..` out, no link
 * leading out). Throws UsageError with every problem on one line.
 */
export async function loadConfig(path: string, cwd: string): Promise<LoadedConfig> {
  const document = await requireDocument(path, cwd);
  const parsed = parseLintConfig(document.value, path);
  if (!parsed.ok) throw new UsageError(`${path}: ${parsed.problems.join('; ')}`);
  const { tools, ...rest } = parsed.config;
  if (typeof tools !== 'string') return { ...rest, tools };
  const folder = dirname(resolve(cwd, path));
  const catalog = resolve(folder, tools);
  if (
    isAbsolute(tools) ||
    !isInside(folder, catalog) ||
    !isInside(realTarget(folder), realTarget(catalog))
  )
    throw new UsageError(
      `${path}: "tools" must name a file in the config's folder or below it, not through a link leading elsewhere (${JSON.stringify(tools)})`,
    );
  return { ...rest, tools: await loadToolCatalog(catalog, cwd) };
}

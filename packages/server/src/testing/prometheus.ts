import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** Debian's Prometheus server (`apt-get install prometheus`; `.ci/run` installs it). */
export const PROMETHEUS_BIN = '/usr/bin/prometheus';

/** Why the Prometheus tests cannot run here, or null when they can. */
export function prometheusSkipReason(): string | null {
  return existsSync(PROMETHEUS_BIN) ? null : `${PROMETHEUS_BIN} is not installed`;
}

/** A running Prometheus server scraping one target. */
export interface RunningPrometheus {
  url: string;
  /** Runs an instant PromQL query through the HTTP API and returns its vector. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

/**
 * Starts a real Prometheus server, in a temp directory, that scrapes `target`
 * (`host:port`, path /metrics) every 500 ms.
 * @throws Error when it does not answer its readiness probe within 30 s.
 */
export async function startPrometheus(target: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 500ms',
      '  scrape_timeout: 400ms',
      'scrape_configs:',
      '  - job_name: airlock',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not start:\n${output.join('').slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await response.json()) as {
        status: string;
        data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
        error?: string;
      };
      if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
      return body.data?.result ?? [];
    },
    stop,
  };
}

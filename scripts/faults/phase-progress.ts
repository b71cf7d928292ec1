import { type StageTicker, stageTicker } from '../../packages/core/src/terminal/progress.js';

/**
 * Runs one phase of the fault test with a `fault-test <name>: <step>, 12.3 s`
 * line on a terminal (never in CI or a pipe), erased at the end. The phase
 * names its steps with `stage` and prints its lines through `say`, which
 * erases the progress line first.
 */
export async function withPhaseProgress<T>(
  name: string,
  work: (progress: PhaseProgress) => Promise<T>,
): Promise<T> {
  const ticker = stageTicker(process.stderr, process.env, `fault-test ${name}`);
  ticker.stage('running');
  try {
    return await work(phaseProgress(ticker));
  } finally {
    ticker.done();
  }
}

/** What a phase uses to show where it is and to print its own lines. */
export interface PhaseProgress {
  stage(text: string): void;
  say(line: string): void;
}

function phaseProgress(ticker: StageTicker): PhaseProgress {
  return {
    stage: (text) => ticker.stage(text),
    say(line) {
      ticker.clear();
      console.log(line);
    },
  };
}

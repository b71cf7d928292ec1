import { describe, expect, it } from 'vitest';
import { fencedLine, fenceReport } from './fence-report.js';

describe('the lines a fence prints, one per fenced call', () => {
  const row = {
    workspace_id: 'ws_1',
    run_id: 'run_1',
    key: 't1',
    kind: 'tool',
    tool_name: 'deploy\tprod\u001b[2J',
    was: 'claimed' as const,
  };

  it('keeps six tab-separated fields whatever the tool name holds', () => {
    // A tab in an agent's tool name read as one more column to `cut -f` and `awk -F'\t'`.
    const fields = fencedLine(row).split('\t');
    expect(fields).toEqual(['ws_1', 'run_1', 't1', 'tool', 'deploy\\tprod\\x1b[2J', 'claimed']);
    expect(fenceReport([row])).toContain(
      '  ws_1\trun_1\tt1\ttool\tdeploy\\tprod\\x1b[2J\tclaimed\n',
    );
  });
});

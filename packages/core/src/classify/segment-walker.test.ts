import { describe, expect, it } from 'vitest';
import { classifyShellSegments, shellWalkTargets } from './segment-walker.js';
import { lexShellLine } from './shell-readings.js';
import { orderedTags, UNREAD_COMMAND_TAGS } from './tags.js';

/** The tags of every segment, read past classifyShellCommand's length bound. */
function readWhole(command: string) {
  const tags = orderedTags(classifyShellSegments(command).flatMap((segment) => segment.tags));
  return tags.length === 0 ? ['unknown'] : tags;
}

describe('classifyShellSegments', () => {
  it('names the wrappers and nestings each command was found through', () => {
    expect(classifyShellSegments(`sudo bash -lc 'echo $(npm i left-pad)'`)).toEqual([
      {
        command: 'npm i left-pad',
        via: ['sudo', 'bash -c', '$(...)'],
        tags: ['install_local', 'network'],
      },
      { command: 'echo $(npm i left-pad)', via: ['sudo', 'bash -c'], tags: ['read'] },
    ]);
  });

  it('follows find -exec and xargs to the command they run', () => {
    expect(classifyShellSegments('find . -exec rm {} \\; | xargs -0 rm -f')).toEqual([
      { command: 'rm {}', via: ['find -exec'], tags: ['delete'] },
      { command: 'find . -exec rm {} ;', via: [], tags: ['read'] },
      { command: 'rm -f', via: ['xargs'], tags: ['delete', 'destructive'] },
    ]);
  });

  it('names what runs a command later or elsewhere', () => {
    const via = (command: string) =>
      classifyShellSegments(command)
        .filter((segment) => segment.command.startsWith('rm'))
        .map((segment) => segment.via.join(' > '));
    expect(via("trap 'rm -rf ~' EXIT")).toEqual(['trap']);
    expect(via("git -c alias.x='!rm -rf ~' x")).toEqual(['git config alias.x']);
    expect(via("git -c core.sshCommand='rm -rf ~' fetch")).toEqual(['git config core.sshcommand']);
    expect(via("ssh -o ProxyCommand='rm -rf ~' host")).toEqual(['ssh -o ProxyCommand']);
    expect(via("tar --to-command='rm -rf ~' -xf a.tar")).toEqual(['tar option']);
    expect(via("rsync -e 'rm -rf ~' a b:")).toEqual(['rsync -e']);
    expect(via("vim -c '!rm -rf x' f")).toEqual(['vim -c']);
    expect(via("watch 'rm -rf x'")).toEqual(['watch']);
    expect(via("GIT_SSH_COMMAND='rm -rf ~' git fetch")).toEqual(['GIT_SSH_COMMAND=']);
  });

  it('says why a command is unknown', () => {
    expect(classifyShellSegments('eval "$X"')).toEqual([
      { command: 'eval $X', via: [], tags: ['unknown'], note: 'eval runs text built at run time' },
      { command: '$X', via: ['eval'], tags: ['unknown'], note: 'the program name is an expansion' },
    ]);
    expect(classifyShellSegments("echo 'open")[0]).toMatchObject({
      tags: ['unknown'],
      note: 'unbalanced single quote',
    });
  });
});

describe('lexShellLine', () => {
  it('reads here-documents as input of the command that opened them', () => {
    const lexed = lexShellLine('cat <<-EOF > out\n\thello\n\tEOF\nls');
    expect(lexed.problems).toEqual([]);
    expect(lexed.segments.map((segment) => segment.words.map((word) => word.text))).toEqual([
      ['cat'],
      ['ls'],
    ]);
    expect(lexed.segments[0]!.inputs).toEqual([{ text: 'hello', dynamic: true }]);
    expect(lexed.segments[0]!.redirections).toEqual([{ operator: '>', target: 'out' }]);
  });

  it('collects the command substitutions of an unquoted here-document body', () => {
    const open = lexShellLine('cat <<EOF\nhi $(rm -rf x) `id` \\$(no)\nEOF');
    expect(open.problems).toEqual([]);
    expect(open.segments[0]!.substitutions).toEqual(['rm -rf x', 'id']);
    const tabbed = lexShellLine('cat <<-EOF\n\t$(rm -rf y)\n\tEOF');
    expect(tabbed.segments[0]!.substitutions).toEqual(['rm -rf y']);
    for (const quoted of ["'EOF'", '"EOF"', '\\EOF']) {
      expect(lexShellLine(`cat <<${quoted}\n$(rm -rf z)\nEOF`).segments[0]!.substitutions).toEqual(
        [],
      );
    }
    // A here-document on no command at all still expands its body.
    expect(lexShellLine('<<EOF\n$(rm -rf w)\nEOF').segments[0]!.substitutions).toEqual([
      'rm -rf w',
    ]);
  });

  it('tells arithmetic from a subshell inside $( )', () => {
    expect(lexShellLine('echo $((1 + 2))').segments[0]!.substitutions).toEqual([]);
    expect(lexShellLine('echo $((cd x && ls) )').segments[0]!.substitutions).toEqual([
      '(cd x && ls) ',
    ]);
  });

  it('decodes $-quoted escapes so an obfuscated name reads as itself', () => {
    expect(lexShellLine("$'\\x72\\155' -rf /").segments[0]!.words[0]).toEqual({
      text: 'rm',
      dynamic: false,
    });
  });

  it("reads an extglob group as part of its word, a command's lone ! before ( as a negation", () => {
    expect(lexShellLine('cat @(a b|secrets)/key').segments[0]!.words.map((w) => w.text)).toEqual([
      'cat',
      '@(a b|secrets)/key',
    ]);
    expect(
      lexShellLine('!(echo hi)').segments.map((s) => s.words.map((w) => w.text)),
    ).toContainEqual(['echo', 'hi']);
  });

  it('reads at most four hex digits after \\u and eight after \\U, as bash does', () => {
    const operand = (line: string) => lexShellLine(line).segments[0]!.words[1]!.text;
    expect(operand("cat $'\\u0073ecrets/key'")).toBe('secrets/key');
    expect(operand("cat $'\\U0073ecrets'")).toBe('\u73ecrets');
    expect(operand("cat $'\\x2eenv'")).toBe('.env');
    expect(operand("cat $'a\\?b'")).toBe('a?b');
  });
});

describe('hostile input', () => {
  it('reads deep nesting as not read (any command) instead of exhausting the stack', () => {
    expect(readWhole(`${'$('.repeat(20000)}ls${')'.repeat(20000)}`)).toEqual([
      ...UNREAD_COMMAND_TAGS,
    ]);
    expect(readWhole("bash -c '".repeat(3000))).toContain('unknown');
    expect(readWhole('$(('.repeat(20000))).toEqual([...UNREAD_COMMAND_TAGS]);
  });

  it('keeps the tags of what nesting or a chain of ssh hops hides: any command but a read', () => {
    const nested = `${'echo $('.repeat(18)}rm -rf victim${')'.repeat(18)}`;
    expect(readWhole(nested)).toEqual([...UNREAD_COMMAND_TAGS]);
    expect(readWhole(`${'ssh h '.repeat(18)}rm -rf victim`)).toEqual([...UNREAD_COMMAND_TAGS]);
  });

  it('reads a bounded amount of nested text, so nested bash -c "$( costs milliseconds, not seconds', () => {
    const hostile = 'bash -c $(bash -c "'.repeat(431);
    const segments = classifyShellSegments(hostile);
    expect(segments.some((segment) => segment.note === 'too much nested text to read')).toBe(true);
    expect(segments.length).toBeLessThan(5000);
  });

  it('keeps the tags behind a long chain of wrappers', () => {
    expect(readWhole(`${'sudo nice timeout 5 env A=1 '.repeat(5000)}rm -rf /`)).toEqual([
      'delete',
      'destructive',
    ]);
  });
});

describe('a glob in a program name', () => {
  it('is read as each known program it fits, and is unknown', () => {
    expect(readWhole('/usr/bin/[r]m -rf victim')).toEqual(['delete', 'destructive', 'unknown']);
    expect(classifyShellSegments('/bin/r? -rf x').map((segment) => segment.via)).toEqual([
      [],
      ['glob r?'],
      ['glob r?'],
    ]);
  });

  it('may be any program when the pattern is too long to be a name, and many stars cost no more than one', () => {
    const any = readWhole(`r${'?'.repeat(70)} -rf victim`);
    expect(any).toContain('publish');
    expect(any).not.toContain('read');
    // A regular expression of 30 `.*` backtracked for hours; runs of `*` are one star here.
    expect(readWhole(`${'*'.repeat(30)}x -rf victim`)).toEqual(readWhole('*x -rf victim'));
  });

  it('may be any program once a call has matched its share of globs', () => {
    const many = `${'c?t notes;'.repeat(40)}c?t notes`;
    expect(readWhole(many)).toContain('destructive');
    expect(readWhole(many)).toContain('publish');
    expect(readWhole('c?t notes')).toEqual(['read', 'unknown']);
  });
});

describe('a chain of ssh', () => {
  const chain = (hops: number) => `${'ssh -p 22 h '.repeat(hops)}rm -rf victim`;

  it('reads plain remote words in place: each word is walked once, not once per hop', () => {
    expect(readWhole(chain(16))).toEqual(['delete', 'destructive', 'network', 'external']);
    // Re-reading the rest at each hop listed every later word again: 16 hops, some 600 words.
    const { words } = shellWalkTargets(chain(16));
    expect(words.length).toBeLessThanOrEqual(16 * 3 + 2);
  });

  it('reads no more than 16 hops, and the rest is unknown', () => {
    expect(readWhole(chain(17))).toContain('unknown');
    expect(classifyShellSegments(chain(600)).length).toBeLessThanOrEqual(17);
  });

  it('still reads the options that run commands, and quoted remote lines, through ssh', () => {
    expect(readWhole("ssh -o ProxyCommand='rm -rf x' h ls")).toContain('delete');
    expect(readWhole('ssh h ssh -F cfg h2 ls')).toContain('unknown');
    expect(readWhole("ssh h 'ls; rm -rf x'")).toContain('destructive');
  });
});

describe('a chain of wrappers that run plain words through a shell', () => {
  it('reads the words in place, as sudo is read, so no level reads the rest again', () => {
    // Joined and read again at each level, the chain ended in `unknown` past 16 levels.
    expect(readWhole(`${'watch '.repeat(40)}rm -rf victim`)).toEqual(['delete', 'destructive']);
    expect(readWhole(`${'parallel -j 2 '.repeat(40)}rm -rf victim`)).toEqual([
      'delete',
      'destructive',
    ]);
  });

  it('still joins and reads again what is not plain, or what parallel adds to', () => {
    expect(readWhole("watch 'ls; rm -rf victim'")).toContain('destructive');
    expect(readWhole('parallel rm ::: -rf victim')).toEqual(['delete', 'destructive']);
    expect(readWhole('parallel -I ls ls -rf victim ::: rm')).toEqual(['unknown']);
  });
});

describe('a [[ =~ regex that takes text a command would hold', () => {
  it('reads that text once more, not once more at every level of $( inside it', () => {
    // Each reading walked the $(...) inside again, so twelve levels made some 20,000 segments.
    const nestedRegexes = `${'[[ x =~ ( $( '.repeat(12)}rm -rf victim`;
    expect(classifyShellSegments(nestedRegexes).length).toBeLessThan(200);
    expect(readWhole(nestedRegexes)).toEqual(['delete', 'destructive', 'unknown']);
  });
});

describe('a program named by a variable the line sets', () => {
  it('reads each value once per classification, up to a bound, not once per value at each word', () => {
    // Four wrapper values before fourteen $v read each path: 4^14 readings without the bound.
    const chain = `v=env; v=nice; v=nohup; v=time; ${'$v '.repeat(14)}rm victim`;
    expect(classifyShellSegments(chain).length).toBeLessThan(200);
    expect(readWhole(chain)).toEqual(expect.arrayContaining(['delete', 'unknown']));
  });
});

import { optionValues } from './flags.js';

/*
 * Web servers that serve a directory's files to whoever asks over the network: `python3 -m
 * http.server` serves the working directory, `php -S` its `-t` document root, `busybox httpd`
 * its `-h` home, `http-server` and `serve` the folder they are given or `.`. Any file there
 * may be read, so recursive-reads.ts reads the directory through, as a search's.
 */

/** The folder an npm server is given first (`http-server dist -p 8080`), else `.` and every operand. */
function folderOperand(args: readonly string[]): string[] {
  const first = args[0];
  if (first !== undefined && !first.startsWith('-')) return [first];
  return ['.', ...args.filter((arg) => !arg.startsWith('-'))];
}

/**
 * The directories a web server serves (`program` is `http.server` when python runs it as a
 * module; `args` follow it), or null for another program.
 */
export function servedDirectories(program: string, args: readonly string[]): string[] | null {
  const given = (names: string[]) => {
    const values = optionValues(args, names);
    return values.length === 0 ? ['.'] : values;
  };
  if (program === 'http.server' || program === 'simplehttpserver') {
    return given(['-d', '--directory']);
  }
  if (program === 'php') return args.includes('-S') ? given(['-t']) : null;
  if (program === 'httpd' && args.every((arg) => arg !== '-k')) return given(['-h']);
  if (['http-server', 'serve', 'live-server'].includes(program)) return folderOperand(args);
  if (program === 'ruby' && args.some((arg) => /^-r?un$/.test(arg))) {
    const at = args.indexOf('httpd');
    return at < 0 ? null : folderOperand(args.slice(at + 1));
  }
  return null;
}

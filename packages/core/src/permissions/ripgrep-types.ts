/**
 * ripgrep 14.1.1's file types (`rg --type-list`; the ripgrep Claude Code 2.1 ships), the common
 * ones: a search given `--type js` reads only files whose name one of the type's globs matches.
 * The table is fixed per ripgrep version; a type not here is read as limiting nothing.
 */
const RIPGREP_TYPES = new Map<string, string>([
  ['asm', '*.S, *.asm, *.s'],
  ['bazel', '*.BUILD, *.bazel, *.bazelrc, *.bzl, BUILD, MODULE.bazel, WORKSPACE, WORKSPACE.bazel'],
  ['c', '*.[chH], *.[chH].in, *.cats'],
  ['clojure', '*.clj, *.cljc, *.cljs, *.cljx'],
  ['cmake', '*.cmake, CMakeLists.txt'],
  ['config', '*.cfg, *.conf, *.config, *.ini'],
  [
    'cpp',
    '*.[ChH], *.[ChH].in, *.[ch]pp, *.[ch]pp.in, *.[ch]xx, *.[ch]xx.in, *.cc, *.cc.in, *.hh, *.hh.in, *.inl',
  ],
  ['cs', '*.cs'],
  ['csharp', '*.cs'],
  ['css', '*.css, *.scss'],
  ['csv', '*.csv'],
  ['dart', '*.dart'],
  ['diff', '*.diff, *.patch'],
  ['elixir', '*.eex, *.ex, *.exs, *.heex, *.leex, *.livemd'],
  ['elm', '*.elm'],
  ['erlang', '*.erl, *.hrl'],
  ['fsharp', '*.fs, *.fsi, *.fsx'],
  ['gn', '*.gn, *.gni'],
  ['go', '*.go'],
  ['graphql', '*.graphql, *.graphqls'],
  ['groovy', '*.gradle, *.groovy'],
  ['haskell', '*.c2hs, *.cpphs, *.hs, *.hsc, *.lhs'],
  ['hs', '*.hs, *.lhs'],
  ['html', '*.ejs, *.htm, *.html'],
  ['java', '*.java, *.jsp, *.jspx, *.properties'],
  ['jinja', '*.j2, *.jinja, *.jinja2'],
  ['js', '*.cjs, *.js, *.jsx, *.mjs, *.vue'],
  ['json', '*.json, *.sarif, composer.lock'],
  ['jsonl', '*.jsonl'],
  ['julia', '*.jl'],
  ['jupyter', '*.ipynb, *.jpynb'],
  ['kotlin', '*.kt, *.kts'],
  ['less', '*.less'],
  ['lock', '*.lock, package-lock.json'],
  ['log', '*.log'],
  ['lua', '*.lua'],
  [
    'make',
    '*.mak, *.mk, [Gg][Nn][Uu]makefile, [Gg][Nn][Uu]makefile.am, [Gg][Nn][Uu]makefile.in, [Mm]akefile, [Mm]akefile.am, [Mm]akefile.in',
  ],
  ['markdown', '*.markdown, *.md, *.mdown, *.mdwn, *.mdx, *.mkd, *.mkdn'],
  ['matlab', '*.m'],
  ['md', '*.markdown, *.md, *.mdown, *.mdwn, *.mdx, *.mkd, *.mkdn'],
  ['nix', '*.nix'],
  ['objc', '*.h, *.m'],
  ['ocaml', '*.ml, *.mli, *.mll, *.mly'],
  ['org', '*.org, *.org_archive'],
  ['perl', '*.PL, *.perl, *.pl, *.plh, *.plx, *.pm, *.t'],
  ['php', '*.php, *.php3, *.php4, *.php5, *.php7, *.php8, *.pht, *.phtml'],
  ['protobuf', '*.proto'],
  ['py', '*.py, *.pyi'],
  ['python', '*.py, *.pyi'],
  ['r', '*.R, *.Rmd, *.Rnw, *.r'],
  ['rst', '*.rst'],
  ['ruby', '*.gemspec, *.rb, *.rbw, .irbrc, Gemfile, Rakefile, config.ru'],
  ['rust', '*.rs'],
  ['sass', '*.sass, *.scss'],
  ['scala', '*.sbt, *.scala'],
  [
    'sh',
    '*.bash, *.bashrc, *.csh, *.cshrc, *.ksh, *.kshrc, *.sh, *.tcsh, *.zsh, .bash_login, .bash_logout, .bash_profile, .bashrc, .cshrc, .kshrc, .login, .logout, .profile, .tcshrc, .zlogin, .zlogout, .zprofile, .zshenv, .zshrc, bash_login, bash_logout, bash_profile, bashrc, profile, zlogin, zlogout, zprofile, zshenv, zshrc',
  ],
  ['solidity', '*.sol'],
  ['sql', '*.psql, *.sql'],
  ['svelte', '*.svelte'],
  ['swift', '*.swift'],
  ['tex', '*.bib, *.cls, *.dtx, *.ins, *.ltx, *.sty, *.tex'],
  [
    'tf',
    '*.auto.tfvars, *.auto.tfvars.json, *.terraform.lock.hcl, *.terraformrc, *.tf, *.tf.json, *.tfrc, terraform.rc, terraform.tfvars, terraform.tfvars.json',
  ],
  ['toml', '*.toml, Cargo.lock'],
  ['ts', '*.cts, *.mts, *.ts, *.tsx'],
  ['txt', '*.txt'],
  ['typescript', '*.cts, *.mts, *.ts, *.tsx'],
  ['vim', '*.vim, .gvimrc, .vimrc, _gvimrc, _vimrc, gvimrc, vimrc'],
  ['vue', '*.vue'],
  ['xml', '*.dtd, *.rng, *.sch, *.xhtml, *.xjb, *.xml, *.xml.dist, *.xsd, *.xsl, *.xslt'],
  ['yaml', '*.yaml, *.yml'],
  ['zig', '*.zig'],
]);

/**
 * What every file a glob of a type names ends with: `*` and the text after its last wildcard
 * (`*.h` of `*.[chH]` is `*`), `*` and the name for a literal one (`*Gemfile`), read as a name
 * filter's globs are (tool-name-filters.ts).
 */
function typeGlobEnding(glob: string): string {
  const wildcard = Math.max(glob.lastIndexOf('*'), glob.lastIndexOf('?'), glob.lastIndexOf(']'));
  return `*${glob.slice(wildcard + 1)}`;
}

/**
 * The name endings of the files a search limited to ripgrep's file type `type` reads (`*.js`,
 * `*.jsx`, ... of `js`), or undefined for a type this table does not hold (ripgrep refuses an
 * unknown one; a newer ripgrep may know it), which limits nothing.
 */
export function ripgrepTypeEndings(type: string): string[] | undefined {
  const globs = RIPGREP_TYPES.get(type);
  return globs?.split(', ').map(typeGlobEnding);
}

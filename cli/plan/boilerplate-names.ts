import picomatch from "picomatch";
import type { ChangeSet } from "../../shared/changeset.js";
import type { ImpactConfig } from "../../shared/config.js";
import { BOILERPLATE_DECLARING_FILES, MAX_BOILERPLATE_CANDIDATES } from "../../shared/limits.js";
import { gitAt } from "../git/repository.js";
import type { Dropped } from "./detect/references.js";
import { type Language, languageOf } from "./symbols/languages/index.js";

/**
 * Kinds whose names many files may declare alike (not a flag, a variable of the environment
 * or a message). A class, interface, type or enum is declared once: what many files write
 * at a line's start under its name is its use (Go's keyed literals, `Task: …`).
 */
const DECLARED_KINDS = new Set(["function", "method", "constant", "variable", "member", "config"]);
/** Kinds of a removed name looked for in the files the change left alone (a type too). */
const GONE_KINDS = new Set([...DECLARED_KINDS, "class", "interface", "type", "enum"]);

/** The files of each language, as git pathspecs: a name is boilerplate among files of its own language. */
const LANGUAGE_FILES: Record<Language, string[]> = {
  typescript: ["*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs"],
  python: ["*.py", "*.pyi"],
  go: ["*.go"],
  rust: ["*.rs"],
  java: ["*.java"],
  ruby: ["*.rb", "*.rake"],
  csharp: ["*.cs"],
  php: ["*.php"],
};

/** Keywords and modifiers that may stand before a declared name at the start of a line. */
const PREFIX =
  "^[[:space:]]*(((export|pub|async|static|readonly|public|private|protected|override|declare|abstract|def|fn|func|function|class|struct|interface|type|const|let|var|enum|trait)[[:space:]]+)|func[[:space:]]*\\([^)]*\\)[[:space:]]*)*";

/**
 * The names the change could flag an article with that many code files of the base declare:
 * boilerplate, not evidence (`code` and `name` in every error class, `meta` and `create` in
 * every lint rule, `request` in every transport). A name counts as declared by a file when
 * a line of it starts with the name, after keywords and modifiers (`def`, `override`,
 * `func (c *T)`), followed by `(`, `:`, `=`, `<`, `?`, `!` or `{`. Code files are those a
 * language is read for, less the docs and `evidence.ignore` (tests, fixtures). Names the
 * change removed or renamed away are never asked about: an article writing one is stale
 * however common it is. One `git grep` at the base, for the change's candidate names only.
 */
export async function boilerplateNames(
  repoRoot: string,
  changeSet: Pick<ChangeSet, "base" | "symbols"> & { files?: ChangeSet["files"] | undefined },
  config: Pick<ImpactConfig, "docs" | "evidence">,
): Promise<Dropped[]> {
  const { names: candidates, gone, languages } = candidateNames(changeSet);
  if (candidates.length === 0 && gone.length === 0) return [];
  const pattern = `${PREFIX}(${[...candidates, ...gone].join("|")})([[:space:]]*[(:=<?!{]|[[:space:]]+(struct|interface)\\b)`;
  let output: string;
  try {
    output = await gitAt(repoRoot).raw([
      "grep",
      "-I",
      "-o",
      "-E",
      "-e",
      pattern,
      changeSet.base,
      "--",
      ...[...languages].flatMap((language) => LANGUAGE_FILES[language]),
    ]);
  } catch {
    return []; // No match (git grep exits 1), or no base to search: nothing is boilerplate.
  }
  const ignored = picomatch([...config.docs, ...config.evidence.ignore], { dot: true });
  const names = new Set([...candidates, ...gone]);
  const changed = new Set((changeSet.files ?? []).flatMap((file) => [file.path, file.oldPath ?? file.path]));
  const files = new Map<string, Set<string>>();
  const prefix = `${changeSet.base}:`;
  for (const line of output.split("\n")) {
    if (!line.startsWith(prefix)) continue;
    const rest = line.slice(prefix.length);
    const colon = rest.indexOf(":");
    if (colon < 0) continue;
    const path = rest.slice(0, colon);
    if (languageOf(path) === undefined || ignored(path)) continue;
    const name = /([\w$]+)(?:\s*[(:=<?!{]|\s+(?:struct|interface))$/.exec(rest.slice(colon + 1))?.[1];
    if (name === undefined || !names.has(name)) continue;
    const set = files.get(name) ?? new Set<string>();
    set.add(path);
    files.set(name, set);
  }
  const common = new Set(candidates);
  const dropped: Dropped[] = [];
  for (const [symbol, paths] of [...files].sort(([left], [right]) => left.localeCompare(right))) {
    if (common.has(symbol) && paths.size >= BOILERPLATE_DECLARING_FILES)
      dropped.push({ symbol, why: `declared by ${paths.size} code files: boilerplate` });
    else if (!common.has(symbol)) {
      // A name the change removed that a file it left alone still declares is not gone: an
      // article writing it may mean that declaration (`Command` from a deleted command file).
      const elsewhere = [...paths].filter((path) => !changed.has(path));
      if (changeSet.files && elsewhere.length > 0)
        dropped.push({ symbol, why: `removed, but still declared in ${elsewhere[0]}` });
    }
  }
  return dropped;
}

/** The names of changed declarations (and the siblings of added ones) an article could be flagged by, less the gone ones. */
function candidateNames(changeSet: Pick<ChangeSet, "symbols">): {
  names: string[];
  /** The public names the change removed or renamed away, of any declared kind. */
  gone: string[];
  languages: Set<Language>;
} {
  const gone = new Set<string>();
  const names = new Set<string>();
  const languages = new Set<Language>();
  for (const symbol of changeSet.symbols) {
    const language = languageOf(symbol.file);
    if (symbol.private || language === undefined) continue;
    if (symbol.change === "removed" || (symbol.change === "renamed" && symbol.oldName)) {
      if (GONE_KINDS.has(symbol.kind)) {
        languages.add(language);
        gone.add(symbol.oldName ?? symbol.name);
      }
      if (symbol.change === "removed") continue;
    }
    if (!DECLARED_KINDS.has(symbol.kind)) continue;
    languages.add(language);
    if (symbol.change === "added") for (const sibling of symbol.siblings ?? []) names.add(sibling);
    else names.add(symbol.name);
  }
  const usable = (name: string) => /^[A-Za-z_][\w]*$/.test(name);
  return {
    names: [...names]
      .filter((name) => !gone.has(name) && usable(name))
      .sort()
      .slice(0, MAX_BOILERPLATE_CANDIDATES),
    gone: [...gone].filter(usable).sort().slice(0, MAX_BOILERPLATE_CANDIDATES),
    languages,
  };
}

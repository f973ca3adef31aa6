import type { ChangedFile } from "../../../shared/changeset.js";
import { includesText, textOf } from "./article-text.js";
import { perFile } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
import { hunkAt, isListLine, locateStale, writes } from "./stale.js";
import { REASON_SCORES, shareFactor } from "./weights.js";

/** Siblings an added dependency needs on the article's list lines: one could be chance. */
const SIBLINGS_NEEDED = 2;
/** Siblings looked for per added dependency, at most. */
const MAX_SIBLINGS = 20;
/** An added dependency's siblings must be listed this close together (lines): one list, not two mentions far apart. */
const LIST_SPAN = 12;
/** A manifest losing more dependencies than this was rewritten (a move to another format): those say little. */
const MAX_REMOVED_PER_FILE = 6;

/** Package manifests whose changed lines declare dependencies, and how each writes one. */
const PYTHON_REQUIREMENTS = /(?:^|\/)(?:setup\.py|setup\.cfg|pyproject\.toml|requirements[^/]*\.(?:txt|in))$/;
const PACKAGE_JSON = /(?:^|\/)package\.json$/;
const CARGO_TOML = /(?:^|\/)Cargo\.toml$/;
const GO_MOD = /(?:^|\/)go\.mod$/;

/** A PEP 508 requirement in quotes: a name, extras, then a version specifier or a marker (`"h2>=3,<5"`, `"brotli; …"`), or the name alone. */
const QUOTED_REQUIREMENT =
  /(["'])([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]"']*\])?\s*(?:(?:[<>=!~]=?|===)(?:(?!\1)[^;])*)?(?:;(?:(?!\1).)*)?\1(?!\s*:)/g;
/** A requirement on a line of its own (requirements.txt, setup.cfg's `install_requires =` list). */
const BARE_REQUIREMENT =
  /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(?:[<>=!~]=?[^;#]*)?(?:;.*)?\s*(?:#.*)?$/;
/** `"name": "^1.2.3"` in package.json's dependency objects. */
const NPM_DEPENDENCY =
  /^\s*"(@?[a-z0-9][\w.-]*(?:\/[\w.-]+)?)"\s*:\s*"(?:[~^<>=]*\s*\d|\*|latest|workspace:|npm:|github:|git\+|file:|link:)/;
/** `name = "1.2"`, `name = { version = … }`, `name.workspace = true` in Cargo.toml (and poetry's tables). */
const TOML_DEPENDENCY =
  /^\s*([A-Za-z0-9][\w-]*)(?:\.workspace\s*=\s*true|\s*=\s*(?:"[~^<>=]*\s*\d[^"]*"|\{[^}]*\b(?:version|path|git|workspace)\s*=))/;
/** `github.com/spf13/pflag v1.0.5` in go.mod's require lines. */
const GO_REQUIREMENT = /^\s*(?:require\s+)?([\w.-]+\.[a-z]{2,}\/[\w./-]+)\s+v\d/;
/** Keys that hold a version without being a dependency (a package's own version, a toolchain). */
const NOT_DEPENDENCIES = new Set([
  "version",
  "rust-version",
  "edition",
  "resolver",
  "node",
  "npm",
  "python",
  "requires-python",
  "minversion",
  "go",
  // Cargo profile settings: `opt-level = "3"` is no crate.
  "opt-level",
  "codegen-units",
  "debug",
  "lto",
  "strip",
  "panic",
  "incremental",
]);

/** Dependency names declared on one line of a manifest. */
function dependenciesOn(path: string, text: string): string[] {
  if (PACKAGE_JSON.test(path)) {
    const name = NPM_DEPENDENCY.exec(text)?.[1];
    return name && !NOT_DEPENDENCIES.has(name) ? [name] : [];
  }
  if (GO_MOD.test(path)) {
    const name = GO_REQUIREMENT.exec(text)?.[1];
    return name ? [name] : [];
  }
  const names: string[] = [];
  if (CARGO_TOML.test(path) || path.endsWith("pyproject.toml")) {
    const name = TOML_DEPENDENCY.exec(text)?.[1];
    if (name && !NOT_DEPENDENCIES.has(name)) names.push(name);
  }
  if (PYTHON_REQUIREMENTS.test(path)) {
    if (/\.(?:txt|in|cfg)$/.test(path)) {
      const bare = BARE_REQUIREMENT.exec(text)?.[1];
      if (bare && !/^\s*-/.test(text) && !/[=:[]\s*$/.test(text.split("#")[0]!)) names.push(bare);
    }
    // Quoted requirements: only those with a version or marker, or in a list (`"charset_normalizer",`),
    // not a setup() keyword's single value (`name="httpx"`, `license="BSD"`).
    for (const match of text.matchAll(QUOTED_REQUIREMENT)) {
      const inList =
        /^\s*$/.test(text.slice(0, match.index)) &&
        /^\s*,?\s*(?:#.*)?$/.test(text.slice(match.index + match[0].length));
      const specified = /[<>=!~;]/.test(match[0]);
      if ((specified || inList) && !NOT_DEPENDENCIES.has(match[2]!)) names.push(match[2]!);
    }
  }
  return names;
}

/** Whether the file is a manifest this rule reads. */
function isDependencyManifest(path: string): boolean {
  return (
    PYTHON_REQUIREMENTS.test(path) || PACKAGE_JSON.test(path) || CARGO_TOML.test(path) || GO_MOD.test(path)
  );
}

export interface DependencyChange {
  name: string;
  file: string;
  change: "added" | "removed";
  /** For an added dependency: the others declared beside it (the same hunk), still there. */
  siblings: string[];
  hunk?: string;
}

/**
 * Dependencies a change adds to or removes from a package manifest (setup.py, pyproject.toml,
 * requirements files, package.json, Cargo.toml, go.mod). A version bump keeps the name on
 * both sides and is neither. Each manifest is read once per plan.
 */
export const dependencyChanges = perFile(manifestChanges);

/** The dependencies one changed manifest adds or removes. */
function manifestChanges(file: ChangedFile): DependencyChange[] {
  if (file.binary || !isDependencyManifest(file.path)) return [];
  const found: DependencyChange[] = [];
  const removed = new Map<string, number>();
  const added = new Set<string>();
  const kept = new Set<string>();
  const hunks = file.hunks.map((hunk) => {
    const context = new Set<string>();
    const addedHere = new Map<string, number>();
    let newLine = hunk.newStart;
    let oldLine = hunk.oldStart;
    for (const line of hunk.lines) {
      const marker = line[0];
      for (const name of dependenciesOn(file.path, line.slice(1))) {
        if (marker === "-") removed.set(name, oldLine);
        else if (marker === "+") {
          added.add(name);
          addedHere.set(name, newLine);
        } else if (marker === " ") {
          kept.add(name);
          context.add(name);
        }
      }
      if (marker === " " || marker === "-") oldLine += 1;
      if (marker === " " || marker === "+") newLine += 1;
    }
    return { context, addedHere };
  });
  const gone = [...removed].filter(([name]) => !added.has(name) && !kept.has(name));
  if (gone.length <= MAX_REMOVED_PER_FILE)
    for (const [name, line] of gone)
      found.push({ name, file: file.path, change: "removed", siblings: [], ...hunkField(file, line) });
  for (const { context, addedHere } of hunks) {
    for (const [name, line] of addedHere) {
      if (removed.has(name) || kept.has(name)) continue;
      const siblings = [
        ...new Set([...context, ...[...addedHere.keys()].filter((other) => removed.has(other))]),
      ]
        .filter((other) => other !== name)
        .slice(0, MAX_SIBLINGS);
      if (siblings.length >= SIBLINGS_NEEDED)
        found.push({ name, file: file.path, change: "added", siblings, ...hunkField(file, line) });
    }
  }
  return found;
}

function hunkField(file: ChangedFile, line: number): { hunk?: string } {
  const hunk = hunkAt(file, line);
  return hunk === undefined ? {} : { hunk };
}

/** What the dependency rule looks for in article text (substrings: names with `/`, `@` or `-` are no single word). */
export function dependencyLookups(changes: readonly DependencyChange[]): string[] {
  return [
    ...new Set(changes.flatMap((change) => (change.change === "added" ? change.siblings : [change.name]))),
  ];
}

/**
 * reference (dependency): the article keeps a list of the project's dependencies (two of an
 * added dependency's siblings on its list lines: a bullet, a table row) that the change made
 * incomplete, or writes a dependency the change removed, as code or on a list line. Install
 * and README pages list what a project depends on, and go stale with the manifest.
 */
export function dependencySignals(input: ArticleSignalInput): void {
  const { articles, sink } = input;
  const changes = dependencyChanges(input.evidence);
  if (changes.length === 0) return;
  const wanted = dependencyLookups(changes);
  const lines = new Map<string, string[]>();
  // Bytes are searched as they are: only an article naming a dependency is decoded and split.
  for (const article of articles) {
    if (wanted.some((name) => includesText(article.content, name)))
      lines.set(article.path, textOf(article.content).split(/\r?\n/));
  }
  const hits = changes.map((change) => {
    const articlesHit: { path: string; terms: string[] }[] = [];
    for (const [path, text] of lines) {
      if (change.change === "removed") {
        const mark = { terms: [change.name] };
        const line = locateStale(text, mark);
        if (line === undefined || line === false) continue;
        const written = text[line - 1]!;
        if (written.includes(`\`${change.name}`) || locateStale(text, { ...mark, list: 1 }) !== false)
          articlesHit.push({ path, terms: [change.name] });
      } else {
        const onList = listedTogether(text, change.siblings);
        if (onList.length >= SIBLINGS_NEEDED) articlesHit.push({ path, terms: onList });
      }
    }
    return { change, articlesHit };
  });
  for (const { change, articlesHit } of hits) {
    const factor = shareFactor(articlesHit.length);
    for (const { path, terms } of articlesHit) {
      const added = change.change === "added";
      sink.add({
        article: path,
        kind: "reference",
        source: change.file,
        detail: added
          ? `${change.name} (dependency, added); the article lists ${terms.slice(0, 3).join(", ")}`
          : `writes ${change.name} (dependency, removed)`,
        score: (added ? REASON_SCORES.dependencySibling : REASON_SCORES.dependencyRemoved) * factor,
        stale: {
          terms,
          list: added ? SIBLINGS_NEEDED : undefined,
          hunk: change.hunk,
        },
      });
    }
  }
}

/**
 * The names written on list lines of one list: the largest set of them whose list lines lie
 * within LIST_SPAN lines of the first (a README's "relies on" bullets, a table of crates).
 */
function listedTogether(lines: readonly string[], names: readonly string[]): string[] {
  const where: { index: number; name: string }[] = [];
  lines.forEach((line, index) => {
    if (!isListLine(lines, index)) return;
    for (const name of names) if (writes(line, name)) where.push({ index, name });
  });
  let best: string[] = [];
  for (const start of where) {
    const together = new Set(
      where
        .filter((other) => other.index >= start.index && other.index - start.index <= LIST_SPAN)
        .map((other) => other.name),
    );
    if (together.size > best.length) best = [...together];
  }
  return best;
}

import type { ChangedFile, ChangedSymbol } from "../../../shared/changeset.js";
import { ReferenceMatcher } from "../matcher.js";
import { type ArticleText, bodyOf } from "./article-text.js";
import { perFile } from "./per-file.js";
import { isRecord } from "./records.js";
import { MAX_DOCUMENT_SHARE, MIN_ARTICLES_FOR_SHARE, tooShortWhy } from "./references.js";
import type { SignalSink } from "./signal.js";
import type { StaleMark } from "./stale.js";
import type { Sweep } from "./sweeps.js";
import { isManifest } from "./versions.js";
import { REASON_SCORES, shareFactor } from "./weights.js";

/** A quoted name: an identifier, kebab-case or not (`output-group-begin`, `absPath`, `rename_all`). */
const NAME = "[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*";
/**
 * Where a quoted name is declared rather than merely used: what CLI flag libraries, config
 * structs, schemas and lookup tables write. Each has one `name` group.
 */
const DECLARATIONS: readonly RegExp[] = [
  // A call's first argument, or its second after a pointer or receiver:
  // pflag.StringVarP(&opts.Output, "output", …), Arg::new("color"), .long("color").
  new RegExp(String.raw`[\w.:]+\(\s*(?:&?[\w.]+\s*,\s*)?(?<q>["'])(?<name>${NAME})\k<q>\s*[,)]`, "g"),
  // A key of a table, map, dict or JSON object: "absPath": filepath.Abs, 'timeout' => 5.
  new RegExp(String.raw`^\s*(?<q>["'])(?<name>${NAME})\k<q>\s*(?::|=>)`, "g"),
  // A named field or attribute: Name: "foo" (urfave/cli), long = "foo" (clap), rename = "foo" (serde).
  new RegExp(
    String.raw`\b(?:[Nn]ame|[Ll]ong|[Aa]lias(?:es)?|rename|[Ff]lag)\s*[:=]\s*(?:\[\]string\{\s*)?(?<q>["'])(?<name>${NAME})\k<q>`,
    "g",
  ),
  // A struct tag: `yaml:"requires,omitempty"`.
  new RegExp(String.raw`\b(?:json|yaml|toml|mapstructure|env|koanf|xml)\s*:\s*"(?<name>${NAME})[,"]`, "g"),
];
/** Names taken from one change, at most (each is a term every article is scanned for). */
const MAX_NAMES = 200;
/** Siblings looked for per added name, at most. */
const MAX_SIBLINGS = 40;
/** Documented siblings an added name needs: one could be chance. */
const SIBLINGS_NEEDED = 2;
/** A file losing more quoted names than this was rewritten, not edited: those names say little. */
const MAX_REMOVED_PER_FILE = 12;

/**
 * A name that is evidence when removed: compound (`output-group-begin`, `rename_all`,
 * `absPath`, `TASK_EXE`). A single word (`headers`, `html`) is on many pages for other
 * reasons (on the truth bench a removed single word, or a declaration line that changed,
 * was right about 1 time in 10).
 */
function isDistinctive(name: string): boolean {
  return /[-_]/.test(name) || /[a-z][A-Z]/.test(name) || /[A-Za-z]\d|\d[A-Za-z]/.test(name);
}

export interface DeclaredName {
  name: string;
  file: string;
  change: "added" | "removed";
  /** For added names: names declared the same way beside it (the same hunk), still there. */
  siblings: string[];
}

/**
 * Names the change's code declares in quotes (flag names, config keys, struct tags, table
 * keys) on its changed lines: compound names (isDistinctive) on removed lines only, and
 * names on added lines only (nowhere in the hunks before). Names the symbol extraction
 * already reports for the file (`--color`) are left to the reference rule.
 */
export function declaredNames(input: {
  evidence: readonly ChangedFile[];
  symbols: readonly ChangedSymbol[];
  ignoreSymbols: readonly string[];
  genericNames: readonly { symbol: string }[];
}): DeclaredName[] {
  const skip = new Set([...input.ignoreSymbols, ...input.genericNames.map((entry) => entry.symbol)]);
  const known = new Set(input.symbols.map((symbol) => `${symbol.file}\u0000${symbol.name}`));
  const usable = (name: string, file: string) =>
    !skip.has(name) &&
    tooShortWhy(name, "variable") === undefined &&
    !known.has(`${file}\u0000${name}`) &&
    !known.has(`${file}\u0000--${name}`);
  const found: DeclaredName[] = [];
  for (const file of input.evidence) {
    const [declared] = fileDeclarations([file]);
    if (!declared) continue;
    const { removed, added, kept, hunks } = declared;
    const before = new Set([...removed, ...kept]);
    const gone = [...removed].filter(
      (name) => !added.has(name) && !kept.has(name) && usable(name, file.path),
    );
    if (gone.length <= MAX_REMOVED_PER_FILE) {
      for (const name of gone)
        if (isDistinctive(name)) found.push({ name, file: file.path, change: "removed", siblings: [] });
    }
    for (const { context, addedHere } of hunks) {
      for (const name of addedHere) {
        if (before.has(name) || !usable(name, file.path)) continue;
        const siblings = [...context, ...[...addedHere].filter((other) => removed.has(other))]
          .filter((other) => other !== name && usable(other, file.path))
          .slice(0, MAX_SIBLINGS);
        if (siblings.length >= SIBLINGS_NEEDED)
          found.push({ name, file: file.path, change: "added", siblings });
      }
    }
    if (found.length >= MAX_NAMES) break;
  }
  return found.slice(0, MAX_NAMES);
}

/** The quoted names a file's changed lines declare, by side, and per hunk its context's and its added lines'. */
interface FileDeclarations {
  removed: ReadonlySet<string>;
  added: ReadonlySet<string>;
  kept: ReadonlySet<string>;
  hunks: { context: ReadonlySet<string>; addedHere: ReadonlySet<string> }[];
}

/**
 * The names each file declares, read once per plan: the lookups and the signals filter them
 * apart (the signals know more generic names: the base's boilerplate).
 */
export const fileDeclarations = perFile(declarationsIn);

function declarationsIn(file: ChangedFile): FileDeclarations[] {
  // Manifests declare dependencies by name in quotes: a version bump is not a changed option.
  if (file.binary || isRecord(file.path) || isManifest(file.path)) return [];
  const removed = new Set<string>();
  const added = new Set<string>();
  const kept = new Set<string>();
  const hunks = file.hunks.map((hunk) => {
    const context = new Set<string>();
    const addedHere = new Set<string>();
    for (const line of hunk.lines) {
      const marker = line[0];
      const into = marker === "-" ? removed : marker === "+" ? added : marker === " " ? kept : undefined;
      if (!into) continue;
      for (const name of namesOn(line.slice(1))) {
        into.add(name);
        if (marker === " ") context.add(name);
        if (marker === "+") addedHere.add(name);
      }
    }
    return { context, addedHere };
  });
  return [{ removed, added, kept, hunks }];
}

/** Quoted names in declaration positions on one line of code. */
function namesOn(text: string): Set<string> {
  const names = new Set<string>();
  // Every declaration quotes its name; most changed lines quote nothing (the patterns are
  // unanchored, and this runs on every changed line).
  if (!text.includes('"') && !text.includes("'")) return names;
  for (const pattern of DECLARATIONS) {
    for (const match of text.matchAll(pattern)) names.add(match.groups!.name!);
  }
  return names;
}

/** The texts an article may write a declared name as: the name as code, and a flag `--name`. */
function termsOf(name: string): { text: string; strict: boolean }[] {
  const terms = [{ text: name, strict: true }];
  if (/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(name)) terms.push({ text: `--${name}`, strict: false });
  return terms;
}

/** What the declared-name rule looks for in article text (for the article index). */
export function declaredNameLookups(names: readonly DeclaredName[]): string[] {
  const texts = new Set<string>();
  for (const entry of names) {
    for (const name of entry.change === "added" ? entry.siblings : [entry.name])
      for (const term of termsOf(name)) texts.add(term.text);
  }
  return [...texts];
}

/**
 * reference (declared name): the article writes, as code or as a `--flag`, a compound
 * name the change declares in quotes that is gone (a flag, config key or struct tag
 * removed: REASON_SCORES.declaredRemoved), or the siblings of an added one
 * (declaredSibling: the page that lists a command's other flags or a table's other keys
 * must gain the new one). A name many articles write says less about each (shareFactor);
 * one in most articles of a large docs set, nothing.
 */
export function declaredNameSignals(input: {
  names: readonly DeclaredName[];
  articles: readonly ArticleText[];
  sweeps: ReadonlyMap<string, Sweep>;
  sink: SignalSink;
}): void {
  const { names, articles, sweeps, sink } = input;
  if (names.length === 0) return;
  const texts: string[] = [];
  const strict = new Set<string>();
  const idOf = new Map<string, number>();
  const termIds = (name: string) =>
    termsOf(name).map((term) => {
      let id = idOf.get(term.text);
      if (id === undefined) {
        id = texts.length;
        idOf.set(term.text, id);
        texts.push(term.text);
        if (term.strict) strict.add(term.text);
      }
      return id;
    });
  const wanted = names.map((entry) => ({
    entry,
    ids: (entry.change === "added" ? entry.siblings : [entry.name]).map(termIds),
  }));
  const matcher = new ReferenceMatcher(texts, (text) => strict.has(text));
  const documentCount = new Int32Array(texts.length);
  const seen: { article: string; found: Set<number> }[] = [];
  for (const article of articles) {
    const ids = matcher.scan(bodyOf(article.content));
    const found = new Set(ids.filter((id) => !strict.has(texts[id]!) || matcher.inCode(id)));
    if (found.size === 0) continue;
    for (const id of found) documentCount[id]! += 1;
    seen.push({ article: article.path, found });
  }
  const tooCommon = (id: number) =>
    articles.length >= MIN_ARTICLES_FOR_SHARE && documentCount[id]! > articles.length * MAX_DOCUMENT_SHARE;
  for (const { article, found } of seen) {
    /** Per changed file: the best reason. */
    const best = new Map<string, { detail: string; score: number; stale: StaleMark }>();
    for (const { entry, ids } of wanted) {
      // Each name counts once, by the most specific of its terms the article has.
      const hits = ids
        .map((termIdsOfName) => termIdsOfName.filter((id) => found.has(id) && !tooCommon(id)))
        .filter((hit) => hit.length > 0);
      if (hits.length === 0) continue;
      const factor = Math.min(
        ...hits.map((hit) => Math.max(...hit.map((id) => shareFactor(documentCount[id]!)))),
      );
      let detail: string;
      let score: number;
      let stale: StaleMark;
      if (entry.change === "added") {
        if (hits.length < SIBLINGS_NEEDED) continue;
        const documented = hits.slice(0, 3).map((hit) => texts[hit[hit.length - 1]!]!);
        detail = `${entry.name} (declared, added); the article documents ${documented.join(", ")}`;
        score = REASON_SCORES.declaredSibling;
        // A complete list of the siblings (a flags table) must gain the new one.
        stale = { terms: hits.map((hit) => texts[hit[hit.length - 1]!]!), list: SIBLINGS_NEEDED };
      } else {
        const written = texts[hits[0]![hits[0]!.length - 1]!]!;
        detail = `writes ${written} (declared in quotes, removed)`;
        score = REASON_SCORES.declaredRemoved;
        stale = { terms: [written] };
      }
      score *= factor;
      const previous = best.get(entry.file);
      if (!previous || score > previous.score) best.set(entry.file, { detail, score, stale });
    }
    for (const [file, { detail, score, stale }] of best) {
      const sweep = sweeps.get(file);
      sink.add({
        article,
        kind: "reference",
        source: file,
        detail: `${detail}${sweep ? `; one of ${sweep.files.length} files changed the same way` : ""}`,
        score: score * (sweep?.factor ?? 1),
        group: sweep?.id,
        stale,
      });
    }
  }
}

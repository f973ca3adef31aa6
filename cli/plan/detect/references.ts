import type { ChangedFile, ChangedSymbol, ChangeSet } from "../../../shared/changeset.js";
import { COMMON_WORDS } from "../common-words.js";
import { ReferenceMatcher } from "../matcher.js";
import { combineScores } from "../score.js";
import { type ArticleText, bodyOf, documentedNames, textOf } from "./article-text.js";
import type { SignalSink } from "./signal.js";
import { filesByPath, hunkAt, locateStale, type StaleMark } from "./stale.js";
import type { Sweep } from "./sweeps.js";
import { CODE_ONLY_FACTOR, REASON_SCORES, shareFactor, symbolScore } from "./weights.js";

/** Names shorter than this are never reference evidence (flags and env vars excepted). */
const MIN_SYMBOL_LENGTH = 4;
/** A term found in more than this share of the articles says nothing about any one of them... */
export const MAX_DOCUMENT_SHARE = 0.5;
/** ...once there are this many articles; in a small repository a name in 3 of 5 still counts. */
export const MIN_ARTICLES_FOR_SHARE = 20;
/** Removed messages searched for, at most (each is a substring search over the docs). */
const MAX_MESSAGES = 30;
/** Siblings looked for per added member, at most. */
const MAX_SIBLINGS = 40;

export interface Dropped {
  symbol: string;
  why: string;
}

interface TermEntry {
  file: string;
  label: string;
  score: number;
  /** Counts only where the article writes the term as code (backticks, quotes, `name(`, `a.name`). */
  codeOnly: boolean;
  /** For the siblings of an added member: which member they speak for. */
  sibling?: { key: string; label: string; needed: number; entries: boolean };
  /**
   * A changed file's path with a folder in it (or a tail of it): what an article names to
   * point at the file, which the history may disown. A bare root name (`package.json`) is
   * weak evidence already.
   */
  path?: boolean;
  /**
   * The article writing this term is stale-statement evidence (an old name, value or path, a
   * removed message); with `list`, siblings on list lines are (see StaleMark). The hunk that
   * made it false.
   */
  stale?: { hunk?: string | undefined } | undefined;
  /**
   * A public name the change removed (or renamed away): every article writing it is wrong,
   * however many do, so the share factor does not apply (a big rename flags them all).
   */
  gone?: boolean;
}

/** How often a changed file and an article changed together before the base (history.ts disowns). */
export type PathCoupling = (
  file: string,
  article: string,
) => { commits: number; together: number } | undefined;

/**
 * reference: the article's text names something the change touched. One pass over each
 * article for all terms (ReferenceMatcher); removed messages are looked up as substrings.
 */
export function referenceSignals(input: {
  changeSet: ChangeSet;
  evidence: readonly ChangedFile[];
  articles: readonly ArticleText[];
  ignoreSymbols: readonly string[];
  /** Names this repository uses everywhere (its package's own name), never evidence. */
  genericNames: readonly Dropped[];
  /** Names the change's own changelog or release-note entries write as code. */
  recordNames: readonly { name: string; file: string }[];
  sweeps: ReadonlyMap<string, Sweep>;
  /**
   * When the history has seen the file change often without the article: the article names
   * the path only to point at it (a "Source code:" link, a file tree), and the path is no
   * evidence for it. Absent without history.
   */
  disowns?: PathCoupling | undefined;
  sink: SignalSink;
}): Dropped[] {
  const { articles, sweeps, sink, disowns } = input;
  /** Why the history disowns `entry`'s path for `article` (it names the file only to point at it), if it does. */
  const disownedWhy = (entry: TermEntry, article: string): string | undefined => {
    const disowned = entry.path ? disowns?.(entry.file, article) : undefined;
    return (
      disowned &&
      `names the path without describing the file: ${entry.file} changed in ${disowned.commits} commits before, the article with it in ${disowned.together}`
    );
  };
  const { texts, entries, messages, dropped } = referenceTerms(input);
  const matcher = new ReferenceMatcher(texts, (text) =>
    (entries.get(text) ?? []).every((entry) => entry.codeOnly),
  );
  const mentions: {
    article: string;
    content: ArticleText["content"];
    ids: number[];
    inCode: boolean[];
    documented: Set<string>;
  }[] = [];
  const documentCount = new Int32Array(texts.length);
  for (const article of articles) {
    const ids = matcher.scan(bodyOf(article.content));
    if (ids.length === 0) continue;
    for (const id of ids) documentCount[id]! += 1;
    const documented = documentedNames(article);
    mentions.push({
      article: article.path,
      content: article.content,
      ids,
      inCode: ids.map((id) => matcher.inCode(id)),
      documented,
    });
  }
  const tooCommon = new Set<number>();
  if (articles.length >= MIN_ARTICLES_FOR_SHARE) {
    texts.forEach((text, id) => {
      const count = documentCount[id]!;
      if (count > articles.length * MAX_DOCUMENT_SHARE) {
        tooCommon.add(id);
        dropped.push({ symbol: text, why: `found in ${count} of ${articles.length} articles` });
      }
    });
  }
  for (const { article, content, ids, inCode, documented } of mentions) {
    const explain = sink.explains(article);
    /** Per changed file and tier (stale evidence or relevance): the best score of each label. */
    const byFile = new Map<string, Map<string, number>>();
    const marks = new Map<string, StaleMark>();
    /** Per added member: its siblings the article writes, each once, and the lowest share factor. */
    const siblingsFound = new Map<string, { entry: TermEntry; names: string[]; factor: number }>();
    const take = (file: string, label: string, score: number, stale?: StaleMark) => {
      const key = `${stale ? "stale" : "related"}\u0000${file}`;
      let labels = byFile.get(key);
      if (!labels) {
        labels = new Map();
        byFile.set(key, labels);
      }
      labels.set(label, Math.max(labels.get(label) ?? 0, score));
      if (stale) {
        const mark = marks.get(key);
        marks.set(
          key,
          mark
            ? {
                ...mark,
                terms: [...new Set([...mark.terms, ...stale.terms])],
                ...(mark.list !== undefined && stale.list !== undefined
                  ? { list: Math.max(mark.list, stale.list), entries: mark.entries && stale.entries }
                  : {}),
              }
            : stale,
        );
      }
    };
    ids.forEach((id, index) => {
      const text = texts[id]!;
      // A name the article documents by API markup is evidence however common it is.
      if (tooCommon.has(id) && !documented.has(text)) {
        if (explain)
          sink.drop({
            article,
            kind: "reference",
            source: "",
            detail: `mentions ${text}`,
            why: `found in ${documentCount[id]} of ${articles.length} articles`,
          });
        return;
      }
      const factor = documented.has(text) ? 1 : shareFactor(documentCount[id]!);
      for (const entry of entries.get(text) ?? []) {
        const refused =
          entry.codeOnly && !inCode[index] ? "written as prose, not as code" : disownedWhy(entry, article);
        if (refused !== undefined) {
          if (explain)
            sink.drop({
              article,
              kind: "reference",
              source: entry.file,
              detail: `mentions ${entry.label}`,
              why: refused,
            });
          continue;
        }
        if (entry.sibling) {
          const found = siblingsFound.get(entry.sibling.key);
          if (!found) siblingsFound.set(entry.sibling.key, { entry, names: [text], factor });
          // A sibling found twice (a key in the struct reading it and in the schema checking it) counts once.
          else if (!found.names.includes(text)) {
            found.names.push(text);
            found.factor = Math.min(found.factor, factor);
          }
          continue;
        }
        take(
          entry.file,
          entry.label,
          entry.score * (entry.gone ? 1 : factor),
          entry.stale && { terms: [text], ...entry.stale },
        );
      }
    });
    let lines: string[] | undefined;
    for (const { entry, names, factor } of siblingsFound.values()) {
      const sibling = entry.sibling!;
      const label = `${sibling.label}; the article documents ${names.slice(0, 3).join(", ")}`;
      // Keys a page writes only in passing (`sources` in a sentence) say nothing of its lists.
      if (sibling.entries && names.length >= sibling.needed) {
        lines ??= textOf(content).split(/\r?\n/);
        if (locateStale(lines, { terms: names, list: sibling.needed, entries: true }) === false) {
          if (explain)
            sink.drop({
              article,
              kind: "reference",
              source: entry.file,
              detail: label,
              why: `lists fewer than ${sibling.needed} of its siblings as entries (a heading, a table's first cell, a bullet's lead)`,
            });
          continue;
        }
      }
      if (names.length >= sibling.needed)
        take(
          entry.file,
          label,
          entry.score * factor,
          entry.stale && {
            terms: names,
            ...entry.stale,
            list: sibling.needed,
            ...(sibling.entries ? { entries: true } : {}),
          },
        );
      else if (explain)
        sink.drop({
          article,
          kind: "reference",
          source: entry.file,
          detail: label,
          why: `documents ${names.length} of its siblings, ${sibling.needed} needed`,
        });
    }
    for (const [key, labels] of byFile) {
      const file = key.slice(key.indexOf("\u0000") + 1);
      const sweep = sweeps.get(file);
      const stale = marks.get(key);
      sink.add({
        stale,
        article,
        kind: "reference",
        source: file,
        detail: `mentions ${[...labels.keys()].join(", ")}${sweep ? `; one of ${sweep.files.length} files changed the same way` : ""}`,
        score: combineScores([...labels.values()]) * (sweep?.factor ?? 1),
        group: sweep?.id,
      });
    }
  }
  for (const message of messages) {
    for (const article of articles) {
      if (!contains(article.content, message.name)) continue;
      sink.add({
        article: article.path,
        kind: "reference",
        source: message.file,
        detail: `quotes "${message.name}" (message, removed)`,
        score: REASON_SCORES.message,
        stale: { terms: [], hunk: message.hunk },
      });
    }
  }
  return dropped;
}

/**
 * What the reference rule looks for in article bodies: the terms (matched by
 * ReferenceMatcher) and the substrings (removed messages). An article body holding none of
 * them gets no reference signal, so a reader may skip it (the article index does).
 */
export function referenceLookups(input: Parameters<typeof referenceTerms>[0]): {
  terms: string[];
  substrings: string[];
} {
  const { texts, messages } = referenceTerms(input);
  return { terms: texts, substrings: messages.map((message) => message.name) };
}

const CHANGE_WORDS: Record<ChangedSymbol["change"], string> = {
  added: "added",
  removed: "removed",
  renamed: "renamed",
  signature: "changed",
  body: "body changed",
  doc: "doc comment changed",
};

/** Siblings of an added member an article must list (one could be chance, and one is no list). */
const SIBLINGS_NEEDED = 2;
/** Single words (`fetch`, `Client`) read as prose; they count only where formatted as code. */
const SINGLE_WORD = /^(?:[a-z]+|[A-Z][a-z]+)$/;
/** Declarations whose body is behaviour an article may describe when it quotes them. */
const BODY_KINDS = new Set<ChangedSymbol["kind"]>(["function", "method", "class"]);

/**
 * The terms to look for: changed files by path (and path suffix), changed symbols by name
 * (old name too, for renames), the documented siblings of added members, removed
 * messages, and the names the change's changelog entries write as code. Too-short, ignored and generic names are dropped; common single words count
 * only as code.
 */
function referenceTerms(input: {
  changeSet: ChangeSet;
  evidence: readonly ChangedFile[];
  ignoreSymbols: readonly string[];
  genericNames: readonly Dropped[];
  recordNames: readonly { name: string; file: string }[];
  sweeps: ReadonlyMap<string, Sweep>;
}) {
  const entries = new Map<string, TermEntry[]>();
  const add = (text: string, entry: TermEntry) => {
    const list = entries.get(text);
    if (list) list.push(entry);
    else entries.set(text, [entry]);
  };
  const dropped: Dropped[] = [];
  const messages: { name: string; file: string; hunk?: string | undefined }[] = [];
  const changedFiles = filesByPath(input.changeSet);
  const hunkOf = (path: string, line: number | undefined) => {
    const file = changedFiles.get(path);
    return { hunk: file && hunkAt(file, line) };
  };
  const ignored = new Set(input.ignoreSymbols);
  const generic = new Map(input.genericNames.map((entry) => [entry.symbol, entry.why]));
  const evidencePaths = new Set<string>();
  for (const file of input.evidence) {
    evidencePaths.add(file.path);
    for (const path of file.oldPath ? [file.path, file.oldPath] : [file.path]) {
      // A path the change deleted or moved away is a statement the article makes false.
      const gone = file.status === "deleted" || path === file.oldPath;
      // A binary file (an image, a logo) is named only where it is gone: a page embedding a
      // deleted image is broken; one naming an image that changed says nothing the change undid.
      if (file.binary && !gone) continue;
      const label = `the path ${path} (${file.status})`;
      const stale = gone ? { stale: hunkOf(file.path, undefined) } : {};
      add(path, {
        file: file.path,
        label,
        score: path.includes("/") ? REASON_SCORES.path : REASON_SCORES.barePath,
        codeOnly: false,
        path: path.includes("/"),
        ...stale,
      });
      // `commands/plan.ts` names the file too; a bare file name (`index.ts`) does not.
      for (let at = path.indexOf("/"); at >= 0; at = path.indexOf("/", at + 1)) {
        const suffix = path.slice(at + 1);
        if (suffix.includes("/"))
          add(suffix, {
            file: file.path,
            label,
            score: REASON_SCORES.path,
            codeOnly: false,
            path: true,
            ...stale,
          });
      }
    }
  }
  const whyDropped = (name: string, kind: ChangedSymbol["kind"]) =>
    ignored.has(name) ? "ignored by config (ignoreSymbols)" : (generic.get(name) ?? tooShortWhy(name, kind));
  for (const symbol of input.changeSet.symbols) {
    if (!evidencePaths.has(symbol.file)) continue;
    const owner = symbol.parent ? ` of ${symbol.parent}` : "";
    if (symbol.kind === "message") {
      if (symbol.change === "removed" && messages.length < MAX_MESSAGES)
        messages.push({ name: symbol.name, file: symbol.file, ...hunkOf(symbol.file, symbol.line) });
      continue;
    }
    if (symbol.change === "added") {
      // An article cannot name what was just added, but the one that documents its
      // siblings (the other options of the same interface or object) must gain it.
      const siblings = (symbol.siblings ?? [])
        .filter((name) => !whyDropped(name, symbol.kind))
        .slice(0, MAX_SIBLINGS);
      // One sibling is no list: a page writing it says nothing of the others.
      if (siblings.length < SIBLINGS_NEEDED) continue;
      const sibling = {
        // A config key added to several files at once (the struct reading it, the schema
        // checking it) is one finding: one reason per article.
        key:
          symbol.kind === "config"
            ? `config\u0000${symbol.name}`
            : `${symbol.file}\u0000${symbol.parent}\u0000${symbol.name}`,
        label: `${symbol.name} (${symbol.kind}${owner}, added)`,
        needed: SIBLINGS_NEEDED,
        // A file's keys are common words (`vars`, `status`): a page lists them, or only uses them.
        entries: symbol.kind === "config",
      };
      for (const name of siblings)
        add(name, {
          file: symbol.file,
          label: sibling.label,
          // A key is read as the declared-name rule reads a quoted one beside others: as strong.
          score: sibling.entries ? REASON_SCORES.declaredSibling : symbolScore(symbol),
          // A compound key (`default-theme`) counts however a list writes it (`- **default-theme:**`),
          // since it must lead a list line; a single word only as code.
          codeOnly: !sibling.entries || SINGLE_WORD.test(name) || isCommonWord(name, symbol.kind),
          sibling,
          stale: symbol.private ? undefined : hunkOf(symbol.file, symbol.line),
        });
      continue;
    }
    if (symbol.change === "body" && !BODY_KINDS.has(symbol.kind)) continue;
    if (
      symbol.change === "doc" &&
      (symbol.kind === "flag" || symbol.kind === "env" || symbol.kind === "config")
    )
      continue;
    const what =
      symbol.change === "renamed" && symbol.oldName
        ? `${symbol.kind}${owner}, renamed ${symbol.oldName} → ${symbol.name}`
        : `${symbol.kind}${owner}, ${CHANGE_WORDS[symbol.change]}`;
    // Stale when the article writes what the change made false: a removed name, the old name
    // of a renamed one, a changed signature, value, flag or type. Public surface only.
    // A signature whose types alone changed (annotations added or narrowed) leaves a quoted call true.
    const staleChange =
      !symbol.private &&
      (symbol.change === "removed" || (symbol.change === "signature" && !symbol.typesOnly));
    for (const name of symbol.oldName ? [symbol.oldName, symbol.name] : [symbol.name]) {
      const gone =
        !symbol.private &&
        (symbol.change === "removed" || (symbol.change === "renamed" && name === symbol.oldName));
      const marks =
        staleChange || gone ? { stale: hunkOf(symbol.file, symbol.line), ...(gone ? { gone } : {}) } : {};
      const why = whyDropped(name, symbol.kind);
      if (why) {
        dropped.push({ symbol: name, why });
        continue;
      }
      const common = isCommonWord(name, symbol.kind);
      add(name, {
        file: symbol.file,
        label: `${name} (${what})`,
        score: symbolScore(symbol) * (common ? CODE_ONLY_FACTOR : 1),
        // A body or doc change counts only where the article quotes the declaration as code.
        codeOnly: common || symbol.change === "body" || symbol.change === "doc" || SINGLE_WORD.test(name),
        ...marks,
      });
    }
  }
  // The author's own words for what the change is about, counted where the article writes them as code.
  for (const { name, file } of input.recordNames) {
    const why =
      whyDropped(name, "variable") ?? (isCommonWord(name, "variable") ? "a common word" : undefined);
    if (why) {
      dropped.push({ symbol: name, why });
      continue;
    }
    add(name, {
      file,
      label: `${name} (written as code in the change's entry in ${file})`,
      score: REASON_SCORES.record,
      codeOnly: true,
    });
  }
  return { texts: [...entries.keys()], entries, messages, dropped };
}

/**
 * Language protocol names (`__init__`, `__call__`): every class of a Python codebase has
 * them, so an article naming one says nothing about which class changed.
 */
const PROTOCOL_NAME = /^__\w+__$/;

/** Why a name is too short (or too generic by its form) to be evidence, or undefined. */
export function tooShortWhy(name: string, kind: ChangedSymbol["kind"]): string | undefined {
  if (PROTOCOL_NAME.test(name)) return "a protocol name every class has";
  if (kind === "flag") return name.replace(/^-+/, "").length < 2 ? "too short" : undefined;
  if (kind === "env") return name.length < 3 ? "too short" : undefined;
  return name.length < MIN_SYMBOL_LENGTH ? "too short" : undefined;
}

/** Single English or generic words (`render`, `Config`, `lines`): evidence only when written as code. */
function isCommonWord(name: string, kind: ChangedSymbol["kind"]): boolean {
  if (kind === "flag" || kind === "env") return false;
  return /^[A-Za-z][a-z]*$/.test(name) && COMMON_WORDS.has(name.toLowerCase());
}

function contains(content: string | Uint8Array, text: string): boolean {
  if (typeof content === "string") return content.includes(text);
  const bytes = Buffer.isBuffer(content)
    ? content
    : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return bytes.includes(text);
}

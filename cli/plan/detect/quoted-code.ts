import type { ChangedFile } from "../../../shared/changeset.js";
import { longestPart } from "../matcher.js";
import { includesText, textOf } from "./article-text.js";
import { perFile } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
import { hunkAt } from "./stale.js";
import {
  COMMENT,
  normalLine,
  removedTemplateLines,
  type TemplateLine,
  templateLineLookups,
} from "./template-lines.js";
import { REASON_SCORES } from "./weights.js";

/** A removed line shorter than this (trimmed) is too common to say the article copied the code (`return err`). */
const MIN_REMOVED_LENGTH = 16;
/** Each line beside an insertion must be this long (trimmed): two short lines meet by chance. */
const MIN_NEIGHBOUR_LENGTH = 12;
/** The other line of a block must be this long (trimmed) and hold a letter: a lone `}` or `[book]` is in every snippet. */
const MIN_OTHER_LENGTH = 8;
/** A block whose longest word is shorter than this is too common to look for. */
const MIN_TERM_LENGTH = 4;
/** Up to this many words, each article is searched for one before its lines are walked; past it, walking is cheaper. */
const MAX_PROBES = 32;
/** Blocks looked for per changed file, at most (a rewritten file says little line by line). */
const MAX_BLOCKS_PER_FILE = 60;

/**
 * Two lines of a changed file that stood next to each other before the change (blank lines
 * aside) and no longer do: a line between them was removed, changed or inserted. An article
 * writing both, one after the other, copied that code (a template, a command's help text, an
 * example), and its copy is what the change altered.
 */
export interface QuotedBlock {
  file: string;
  lines: readonly [string, string];
  /** Looked for first in article text (the longer line). */
  probe: string;
  /** The longest part of either line as the article index cuts words (longestPart in matcher.ts): an article holding the lines holds it. */
  term: string;
  /** Which of the two lines the change removed or changed (the second for an insertion: the first line is where one is missing after). */
  changed: 0 | 1;
  hunk?: string | undefined;
}

/** An import (`"fmt"`, `homedir "github.com/…"`, `use std::io;`): every example of a package writes the same ones. */
const IMPORT = /^(?:import\b|use\s|from\s+\S+\s+import\b|#include\b|extern crate\b|(?:[\w.]+\s+)?"[^"]*"$)/;

/** A line that can stand for the code around it: long enough, a letter, no import. */
function telling(text: string, length: number): boolean {
  return text.length >= length && /[A-Za-z]/.test(text) && !IMPORT.test(text);
}

/** The blocks the change broke in the evidence files (each file read once per plan). */
export const quotedBlocks = perFile(fileBlocks);

/** The blocks the change broke in one file. */
function fileBlocks(file: ChangedFile): QuotedBlock[] {
  if (file.binary || file.status !== "modified") return [];
  // Pairs of lines still adjacent after the change, and every line the change wrote (a moved line is no change).
  const newPairs = new Set<string>();
  const written = new Set<string>();
  for (const hunk of file.hunks) {
    let previous: string | undefined;
    for (const line of hunk.lines) {
      if (line[0] !== " " && line[0] !== "+") continue;
      const text = line.slice(1).trim();
      if (text === "") continue;
      if (line[0] === "+") written.add(text);
      if (previous !== undefined) newPairs.add(`${previous}\n${text}`);
      previous = text;
    }
  }
  const found = new Map<string, QuotedBlock>();
  for (const hunk of file.hunks) {
    // The old side, blank lines aside; `inserted` marks an old line followed by added lines.
    const old: { text: string; removed: boolean; line: number; inserted: boolean }[] = [];
    let oldLine = hunk.oldStart;
    let pendingInsert = false;
    for (const line of hunk.lines) {
      const marker = line[0];
      if (marker === "+") {
        if (line.slice(1).trim() !== "" && !COMMENT.test(line.slice(1).trim())) pendingInsert = true;
        continue;
      }
      if (marker !== " " && marker !== "-") continue;
      const text = line.slice(1).trim();
      if (text !== "") {
        if (pendingInsert && old.length > 0) old[old.length - 1]!.inserted = true;
        pendingInsert = false;
        old.push({ text, removed: marker === "-", line: oldLine, inserted: false });
      }
      oldLine += 1;
    }
    const add = (first: string, second: string, line: number, changed: 0 | 1) => {
      const key = `${first}\n${second}`;
      if (newPairs.has(key) || found.has(key) || found.size >= MAX_BLOCKS_PER_FILE) return;
      if (!telling(changed === 0 ? second : first, MIN_OTHER_LENGTH)) return;
      const probe = first.length >= second.length ? first : second;
      const term = longestPart(`${first} ${second}`);
      if (term.length < MIN_TERM_LENGTH) return;
      found.set(key, {
        file: file.path,
        lines: [first, second],
        probe,
        term,
        changed,
        hunk: hunkAt(file, line),
      });
    };
    old.forEach((entry, index) => {
      const next = old[index + 1];
      const substantial = (text: string) => telling(text, MIN_REMOVED_LENGTH) && !COMMENT.test(text);
      if (entry.removed && substantial(entry.text) && !written.has(entry.text)) {
        const before = old[index - 1];
        if (before) add(before.text, entry.text, entry.line, 1);
        if (next) add(entry.text, next.text, entry.line, 0);
      } else if (
        entry.inserted &&
        next &&
        !entry.removed &&
        !next.removed &&
        telling(entry.text, MIN_NEIGHBOUR_LENGTH) &&
        telling(next.text, MIN_NEIGHBOUR_LENGTH)
      ) {
        add(entry.text, next.text, entry.line, 0);
      }
    });
  }
  return [...found.values()];
}

/** What the rule needs an article to hold before it is read: a word of each block (the article index answers it). */
export function quotedBlockLookups(blocks: readonly QuotedBlock[]): string[] {
  return [...new Set(blocks.map((block) => block.term))];
}

/**
 * reference (quoted code): the article writes, one after the other, two lines of a changed
 * file that the change separated (it removed or changed one of them, or inserted a line
 * between them), or one line holding a placeholder that the change removed or changed
 * (template-lines.ts). The page copied that code (a template it shows, a command's help
 * text, an example), and its copy no longer matches.
 */
export function quotedCodeSignals(input: ArticleSignalInput): void {
  const blocks = quotedBlocks(input.evidence);
  const templates = removedTemplateLines(input.evidence);
  if (blocks.length === 0 && templates.length === 0) return;
  // Each block by its two lines, each template line by its text: an article's lines are
  // looked up here, one map lookup per line and line pair, instead of searching every
  // article for every block (a 500-file change breaks thousands of blocks).
  const byPair = new Map<string, QuotedBlock[]>();
  for (const block of blocks) {
    const key = `${block.lines[0]}\n${block.lines[1]}`;
    const same = byPair.get(key);
    if (same) same.push(block);
    else byPair.set(key, [block]);
  }
  const byLine = new Map<string, TemplateLine>();
  for (const template of templates) if (!byLine.has(template.text)) byLine.set(template.text, template);
  const probes = [...quotedBlockLookups(blocks), ...templateLineLookups(templates)];
  for (const article of input.articles) {
    // The article index's word: an article without one of them writes none of the blocks.
    if (probes.length <= MAX_PROBES && !probes.some((probe) => includesText(article.content, probe)))
      continue;
    const bySource = new Map<string, { detail: string; line: number; hunk: string | undefined }>();
    let previous: { text: string; line: number } | undefined;
    textOf(article.content)
      .split(/\r?\n/)
      .forEach((raw, index) => {
        const text = raw.trim();
        if (text === "") return;
        const current = { text, line: index + 1 };
        const template = byLine.get(normalLine(text));
        if (template && !bySource.has(template.file))
          bySource.set(template.file, {
            detail: `copies a line the change altered (${clip(template.text)})`,
            line: current.line,
            hunk: template.hunk,
          });
        if (previous !== undefined) {
          for (const block of byPair.get(`${previous.text}\n${text}`) ?? []) {
            if (!bySource.has(block.file))
              bySource.set(block.file, {
                detail: `quotes code the change altered (${clip(block.probe)})`,
                line: block.changed === 0 ? previous.line : current.line,
                hunk: block.hunk,
              });
          }
        }
        previous = current;
      });
    for (const [source, { detail, line, hunk }] of bySource) {
      input.sink.add({
        article: article.path,
        kind: "reference",
        source,
        detail,
        score: REASON_SCORES.quotedCode,
        stale: { terms: [], line, hunk },
      });
    }
  }
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

import type { ChangedFile } from "../../../shared/changeset.js";
import { longestPart } from "../matcher.js";
import { includesText, textOf } from "./article-text.js";
import type { ArticleSignalInput } from "./signal.js";
import { hunkAt } from "./stale.js";
import { REASON_SCORES } from "./weights.js";

/** A removed template line shorter than this (trimmed) is too common to say the article copied it. */
const MIN_LENGTH = 25;
/** Lines looked for per changed file, at most (a rewritten template says little line by line). */
const MAX_LINES_PER_FILE = 40;
/** Up to this many words, each article is searched for one before its lines are walked; past it, walking is cheaper. */
const MAX_PROBES = 32;
/**
 * A placeholder a template or a help text fills in: `%[1]s`, `%s`, `%v`, `{{.Name}}`,
 * `${error.message}`, `{0}`. A line holding one is text the program prints, which pages copy.
 */
const PLACEHOLDER = /%\[\d+\][a-z]|%[sdvq]\b|\{\{[^}]*\}\}|\$\{[^}]+\}|\{\d\}/;
/** A comment line: its wording is no text the program prints. */
const COMMENT = /^(?:\/\/|#(?!!)|\/\*|\*|--|;|<!--)/;
/** A shell prompt before a command (`$ tool completion bash`): pages write it, templates do not. */
const PROMPT = /^[$>]\s+/;

export interface TemplateLine {
  file: string;
  text: string;
  term: string;
  hunk?: string | undefined;
}

/** A line as compared: trimmed, without a shell prompt. */
function normal(line: string): string {
  return line.trim().replace(PROMPT, "");
}

/**
 * Lines holding a placeholder that the change removed or changed (not written again
 * anywhere in the file's added lines): a template's or a help text's line as it was.
 */
export function removedTemplateLines(evidence: readonly ChangedFile[]): TemplateLine[] {
  const found: TemplateLine[] = [];
  for (const file of evidence) {
    if (file.binary || file.status !== "modified") continue;
    const written = new Set<string>();
    for (const hunk of file.hunks)
      for (const line of hunk.lines) if (line[0] === "+") written.add(normal(line.slice(1)));
    const seen = new Set<string>();
    for (const hunk of file.hunks) {
      let oldLine = hunk.oldStart;
      for (const line of hunk.lines) {
        const marker = line[0];
        if (marker === "-") {
          const text = normal(line.slice(1));
          if (
            text.length >= MIN_LENGTH &&
            PLACEHOLDER.test(text) &&
            !COMMENT.test(text) &&
            !written.has(text) &&
            !seen.has(text) &&
            seen.size < MAX_LINES_PER_FILE
          ) {
            seen.add(text);
            found.push({ file: file.path, text, term: longestPart(text), hunk: hunkAt(file, oldLine) });
          }
        }
        if (marker === " " || marker === "-") oldLine += 1;
      }
    }
  }
  return found;
}

/** What the rule needs an article to hold before it is read: a word of each line (the article index answers it). */
export function templateLineLookups(lines: readonly TemplateLine[]): string[] {
  return [...new Set(lines.map((line) => line.term))];
}

/**
 * reference (template line): the article writes, word for word, a line holding a
 * placeholder (`%[1]s completion bash > /usr/local/etc/bash_completion.d/%[1]s`) that the
 * change removed or changed: the page copied what the program prints (a help text, a
 * template, an example's message), and its copy no longer matches.
 */
export function templateLineSignals(input: ArticleSignalInput): void {
  const lines = removedTemplateLines(input.evidence);
  if (lines.length === 0) return;
  // Each line by its text: an article's lines are looked up here, one map lookup per line.
  const byText = new Map<string, TemplateLine>();
  for (const line of lines) if (!byText.has(line.text)) byText.set(line.text, line);
  const probes = templateLineLookups(lines);
  for (const article of input.articles) {
    if (probes.length <= MAX_PROBES && !probes.some((probe) => includesText(article.content, probe)))
      continue;
    const bySource = new Map<string, { line: TemplateLine; at: number }>();
    textOf(article.content)
      .split(/\r?\n/)
      .forEach((raw, index) => {
        const found = byText.get(normal(raw));
        if (found && !bySource.has(found.file)) bySource.set(found.file, { line: found, at: index + 1 });
      });
    for (const [source, { line, at }] of bySource) {
      input.sink.add({
        article: article.path,
        kind: "reference",
        source,
        detail: `copies a line the change altered (${line.text.length > 60 ? `${line.text.slice(0, 57)}…` : line.text})`,
        score: REASON_SCORES.quotedCode,
        stale: { terms: [], line: at, hunk: line.hunk },
      });
    }
  }
}

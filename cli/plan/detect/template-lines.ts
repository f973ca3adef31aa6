import type { ChangedFile } from "../../../shared/changeset.js";
import { longestPart } from "../matcher.js";
import { perFile } from "./per-file.js";
import { hunkAt } from "./stale.js";

/** A removed template line shorter than this (trimmed) is too common to say the article copied it. */
const MIN_LENGTH = 25;
/** Lines looked for per changed file, at most (a rewritten template says little line by line). */
const MAX_LINES_PER_FILE = 40;
/**
 * A placeholder a template or a help text fills in: `%[1]s`, `%s`, `%v`, `{{.Name}}`,
 * `${error.message}`, `{0}`. A line holding one is text the program prints, which pages copy.
 */
const PLACEHOLDER = /%\[\d+\][a-z]|%[sdvq]\b|\{\{[^}]*\}\}|\$\{[^}]+\}|\{\d\}/;
/** A comment line: its wording is no code a page copies as it is, nor text the program prints. */
export const COMMENT = /^(?:\/\/|#(?!!)|\/\*|\*|--|;|<!--)/;
/** A shell prompt before a command (`$ tool completion bash`): pages write it, templates do not. */
const PROMPT = /^[$>]\s+/;

export interface TemplateLine {
  file: string;
  text: string;
  term: string;
  hunk?: string | undefined;
}

/**
 * A line as compared: trimmed, without a shell prompt. The article's lines are looked up by
 * it as the quoted-code rule walks them (quotedCodeSignals): an article copying such a line
 * is stale, since it copied what the program prints (a help text, a template, an example's
 * message) and its copy no longer matches.
 */
export function normalLine(line: string): string {
  return line.trim().replace(PROMPT, "");
}

/**
 * Lines holding a placeholder that the change removed or changed (not written again
 * anywhere in the file's added lines): a template's or a help text's line as it was. Each
 * file is read once per plan.
 */
export const removedTemplateLines = perFile(fileTemplateLines);

function fileTemplateLines(file: ChangedFile): TemplateLine[] {
  if (file.binary || file.status !== "modified") return [];
  const found: TemplateLine[] = [];
  const written = new Set<string>();
  for (const hunk of file.hunks)
    for (const line of hunk.lines) if (line[0] === "+") written.add(normalLine(line.slice(1)));
  const seen = new Set<string>();
  for (const hunk of file.hunks) {
    let oldLine = hunk.oldStart;
    for (const line of hunk.lines) {
      const marker = line[0];
      if (marker === "-") {
        const text = normalLine(line.slice(1));
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
  return found;
}

/** What the rule needs an article to hold before it is read: a word of each line (the article index answers it). */
export function templateLineLookups(lines: readonly TemplateLine[]): string[] {
  return [...new Set(lines.map((line) => line.term))];
}

/**
 * The one reading of a unified diff's lines. Every walker (the change set's parser, the
 * patch checks, the secret scan, the comment and HTML renderers, the first message) derives
 * from `readDiffLines`: a line is a hunk body line only while its hunk's header says lines
 * are left, so a body line reading `+++ x` or `--- x` is never taken for a file header.
 */

/** The numbers of a unified diff's hunk header `@@ -a,b +c,d @@ section`. */
export interface HunkHeader {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** What follows the closing `@@` (git puts the enclosing function or heading there). */
  section: string;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

/** Parses a hunk header line (a trailing CR is ignored); undefined when it is not one. */
function parseHunkHeader(line: string): HunkHeader | undefined {
  const match = HUNK_HEADER.exec(stripCr(line));
  if (!match) return undefined;
  return {
    oldStart: Number(match[1]),
    oldLines: match[2] === undefined ? 1 : Number(match[2]),
    newStart: Number(match[3]),
    newLines: match[4] === undefined ? 1 : Number(match[4]),
    section: match[5] ?? "",
  };
}

/**
 * `meta`: a line outside any hunk (file headers, extended headers, preamble, binary data);
 * `hunk`: a hunk header; `context`, `added`, `removed`: hunk body lines; `note`: a
 * `\ No newline at end of file` marker.
 */
export type DiffLineKind = "meta" | "hunk" | "context" | "added" | "removed" | "note";

export interface DiffLine {
  kind: DiffLineKind;
  /** The line as written (a trailing CR included, no "\n"). */
  raw: string;
  /** The header's numbers, on `hunk` lines. */
  hunk?: HunkHeader;
  /** 1-based line in the old file, on `context` and `removed` lines. */
  oldLine?: number;
  /** 1-based line in the new file, on `context` and `added` lines. */
  newLine?: number;
}

/** Why the text is not a well-formed unified diff: the first problem, at a 0-based line index. */
interface DiffProblem {
  index: number;
  message: string;
}

export interface DiffLines {
  lines: DiffLine[];
  /** The first problem met; the walk goes on past it (the hunk ends, the line is `meta`). */
  problem?: DiffProblem;
}

/**
 * Classifies every line of a unified diff. Hunk bodies are read by the counts in their
 * headers; a blank line inside a hunk is a context line (some tools strip the space).
 * Never throws: a malformed hunk is reported in `problem` and ends there.
 */
export function readDiffLines(text: string): DiffLines {
  const raws = text.split("\n");
  if (raws.at(-1) === "") raws.pop();
  const lines: DiffLine[] = new Array(raws.length);
  let problem: DiffProblem | undefined;
  const report = (index: number, message: string) => {
    problem ??= { index, message };
  };
  let index = 0;
  while (index < raws.length) {
    const raw = raws[index]!;
    const header = parseHunkHeader(raw);
    if (!header) {
      lines[index] = { kind: "meta", raw };
      index += 1;
      continue;
    }
    lines[index] = { kind: "hunk", raw, hunk: header };
    const name = stripCr(raw);
    let oldLeft = header.oldLines;
    let newLeft = header.newLines;
    let oldLine = header.oldStart;
    let newLine = header.newStart;
    index += 1;
    while (oldLeft > 0 || newLeft > 0 || (raws[index] ?? "").startsWith("\\")) {
      const body = raws[index];
      if (body === undefined) {
        report(index, `hunk "${name}" ends early (truncated diff?)`);
        break;
      }
      const marker = body === "" || body === "\r" ? " " : body[0];
      if (marker === "\\") {
        lines[index] = { kind: "note", raw: body };
      } else if (marker === " " && oldLeft > 0 && newLeft > 0) {
        lines[index] = { kind: "context", raw: body, oldLine: oldLine++, newLine: newLine++ };
        oldLeft -= 1;
        newLeft -= 1;
      } else if (marker === "-" && oldLeft > 0) {
        lines[index] = { kind: "removed", raw: body, oldLine: oldLine++ };
        oldLeft -= 1;
      } else if (marker === "+" && newLeft > 0) {
        lines[index] = { kind: "added", raw: body, newLine: newLine++ };
        newLeft -= 1;
      } else {
        report(
          index,
          marker === " " || marker === "-" || marker === "+"
            ? `hunk "${name}" has more lines than its header says`
            : `line ${index + 1} in hunk "${name}" has no +, - or space`,
        );
        break;
      }
      index += 1;
    }
  }
  return problem ? { lines, problem } : { lines };
}

/** A body line's text without its marker and without a trailing CR (a blank line is ""). */
export function lineText(line: DiffLine): string {
  return stripCr(line.raw.slice(1));
}

/**
 * The lines a unified patch adds, without their `+` (file headers left out): what an edit
 * brings in, as opposed to the context and removed lines already in the file.
 */
export function addedLines(patch: string): string[] {
  const added: string[] = [];
  for (const line of readDiffLines(patch).lines) if (line.kind === "added") added.push(line.raw.slice(1));
  return added;
}

export function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

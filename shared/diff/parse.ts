import type { ChangedFile, FileStatus, Hunk } from "../changeset.js";
import { UsageError } from "../errors.js";
import { type HunkHeader, readDiffLines, stripCr } from "./lines.js";

// A hand-written parser because git's extended headers (renames, copies, modes,
// binary markers, submodules) are exactly what generic patch parsers drop.

const SUBMODULE_MODE = "160000";

interface Draft {
  oldPath?: string;
  newPath?: string;
  gitPaths?: { old: string; new: string } | undefined;
  status?: FileStatus;
  binary: boolean;
  submodule: boolean;
  /** Whether the `---`/`+++` pair was read. */
  headerSeen: boolean;
  oldMode?: string;
  newMode?: string;
  hunks: Hunk[];
  lines: string[];
}

/**
 * Parses a unified diff: `git diff` output (renames, copies, binary files, mode changes,
 * submodules) or a plain `diff -u` as GitHub's API returns it. Empty text is an empty change.
 * Throws a UsageError (code "input") when the text is not a unified diff.
 */
export function parseUnifiedDiff(text: string): ChangedFile[] {
  const { lines, problem } = readDiffLines(text);
  const files: ChangedFile[] = [];
  let draft: Draft | undefined;
  let hunk: Hunk | undefined;
  const finish = () => {
    if (draft) files.push(toChangedFile(draft));
    draft = undefined;
    hunk = undefined;
  };
  const fresh = (): Draft => ({ binary: false, submodule: false, headerSeen: false, hunks: [], lines: [] });
  const fail = (message: string): never => {
    throw new UsageError(`not a unified diff: ${message}`, { code: "input" });
  };

  for (let index = 0; index < lines.length; index += 1) {
    if (problem?.index === index) fail(problem.message);
    const { kind, raw } = lines[index]!;
    if (kind === "hunk") {
      if (!draft) fail(`line ${index + 1} has a hunk before any file header`);
      hunk = { ...hunkNumbers(lines[index]!.hunk!), header: stripCr(raw), lines: [] };
      draft!.hunks.push(hunk);
      draft!.lines.push(raw);
      continue;
    }
    if (kind !== "meta") {
      const body = stripCr(raw);
      hunk!.lines.push(body === "" ? " " : body);
      if (body.startsWith("+Subproject commit ") || body.startsWith("-Subproject commit "))
        draft!.submodule = true;
      draft!.lines.push(raw);
      continue;
    }
    hunk = undefined;
    const line = stripCr(raw);
    if (line.startsWith("diff --git ")) {
      finish();
      draft = fresh();
      draft.gitPaths = splitGitPaths(line.slice("diff --git ".length));
      draft.lines.push(raw);
      continue;
    }
    const next = lines[index + 1];
    if (line.startsWith("--- ") && next?.kind === "meta" && stripCr(next.raw).startsWith("+++ ")) {
      // A plain `diff -u` file starts at its `---` line; a git one already started.
      if (!draft || draft.hunks.length > 0 || draft.headerSeen) {
        finish();
        draft = fresh();
      }
      draft.headerSeen = true;
      draft.oldPath ??= headerPath(line.slice(4));
      draft.newPath ??= headerPath(stripCr(next.raw).slice(4));
      draft.lines.push(raw, next.raw);
      index += 1;
      continue;
    }
    if (draft && draft.hunks.length === 0 && readExtendedHeader(line, draft)) {
      draft.lines.push(raw);
      continue;
    }
    if (draft && (line.startsWith("GIT binary patch") || /^(literal|delta) \d+$/.test(line))) {
      draft.binary = true;
      draft.lines.push(raw);
      continue;
    }
    if (draft && line === "" && draft.binary) continue;
    // Anything else between files (commit headers of `git format-patch`, `Index:` lines,
    // `diff -u a b` command lines, base85 data) is preamble we skip.
    if (draft?.binary) draft.lines.push(raw);
  }
  if (problem && problem.index >= lines.length) fail(problem.message);
  finish();
  if (files.length === 0 && text.trim() !== "") {
    fail("no file headers (`diff --git` or `---`/`+++`) found");
  }
  return files;
}

function hunkNumbers(header: HunkHeader): Pick<Hunk, "oldStart" | "oldLines" | "newStart" | "newLines"> {
  return {
    oldStart: header.oldStart,
    oldLines: header.oldLines,
    newStart: header.newStart,
    newLines: header.newLines,
  };
}

/** Reads one git extended header line into the draft; false when it is not one. */
function readExtendedHeader(line: string, draft: Draft): boolean {
  const [keyword, rest] = splitHeader(line);
  switch (keyword) {
    case "old mode":
      draft.oldMode = rest;
      return true;
    case "new mode":
      draft.newMode = rest;
      return true;
    case "deleted file mode":
    case "new file mode": {
      const added = keyword === "new file mode";
      draft.status = added ? "added" : "deleted";
      draft[added ? "newMode" : "oldMode"] = rest;
      if (rest === SUBMODULE_MODE) draft.submodule = true;
      return true;
    }
    case "rename from":
    case "rename to":
    case "copy from":
    case "copy to":
      // "rename from x": the status from the first word, the side from the second.
      draft.status = keyword.startsWith("rename") ? "renamed" : "copied";
      draft[keyword.endsWith("from") ? "oldPath" : "newPath"] = unquoteGitPath(rest);
      return true;
    case "similarity index":
    case "dissimilarity index":
      return true;
    case "index": {
      const mode = rest.split(" ")[1];
      if (mode === SUBMODULE_MODE) draft.submodule = true;
      return true;
    }
    case "Binary files":
      draft.binary = true;
      return true;
    default:
      return false;
  }
}

const HEADER_KEYWORDS = [
  "old mode",
  "new mode",
  "deleted file mode",
  "new file mode",
  "rename from",
  "rename to",
  "copy from",
  "copy to",
  "similarity index",
  "dissimilarity index",
  "index",
  "Binary files",
];

function splitHeader(line: string): [string, string] {
  for (const keyword of HEADER_KEYWORDS) {
    if (line.startsWith(`${keyword} `)) return [keyword, line.slice(keyword.length + 1)];
  }
  return ["", line];
}

function toChangedFile(draft: Draft): ChangedFile {
  const oldPath = draft.oldPath ?? (draft.gitPaths ? draft.gitPaths.old : undefined);
  const newPath = draft.newPath ?? (draft.gitPaths ? draft.gitPaths.new : undefined);
  let status: FileStatus = draft.status ?? "modified";
  if (oldPath === "/dev/null") status = "added";
  else if (newPath === "/dev/null") status = "deleted";
  else if (
    status === "modified" &&
    draft.oldMode !== undefined &&
    draft.newMode !== undefined &&
    fileType(draft.oldMode) !== fileType(draft.newMode)
  ) {
    status = "type_changed";
  }
  if (draft.submodule) status = "submodule";
  const path = (status === "deleted" ? oldPath : newPath) ?? oldPath ?? "";
  const file: ChangedFile = {
    path,
    status,
    binary: draft.binary,
    hunks: draft.binary ? [] : draft.hunks,
    patch: draft.binary ? "" : `${draft.lines.join("\n")}\n`,
  };
  if ((status === "renamed" || status === "copied") && oldPath && oldPath !== path) file.oldPath = oldPath;
  return file;
}

function fileType(mode: string): string {
  return mode.slice(0, 3);
}

/** A `---`/`+++` path: unquoted, without a trailing timestamp and without the a/ or b/ prefix. */
function headerPath(text: string): string {
  let path = text.startsWith('"') ? unquoteGitPath(text.split(/\t/)[0]!) : (text.split("\t")[0] ?? text);
  path = path.trimEnd();
  if (path === "/dev/null") return path;
  if (/^[ab]\//.test(path)) path = path.slice(2);
  return path;
}

/** `a/x b/y` of a `diff --git` line; with spaces in names it splits where both halves agree. */
function splitGitPaths(text: string): { old: string; new: string } | undefined {
  if (text.startsWith('"')) {
    const quoted = /^("(?:[^"\\]|\\.)*")\s+(.*)$/.exec(text);
    if (quoted)
      return { old: stripPrefix(unquoteGitPath(quoted[1]!)), new: stripPrefix(unquoteGitPath(quoted[2]!)) };
  }
  const middle = (text.length - 1) / 2;
  if (Number.isInteger(middle) && text[middle] === " ") {
    const left = text.slice(0, middle);
    const right = text.slice(middle + 1);
    if (left.slice(2) === right.slice(2)) return { old: stripPrefix(left), new: stripPrefix(right) };
  }
  const at = text.indexOf(" b/");
  if (at < 0) return undefined;
  return { old: stripPrefix(text.slice(0, at)), new: stripPrefix(text.slice(at + 1)) };
}

function stripPrefix(path: string): string {
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7, '"': 34, "\\": 92 };

/** Undoes git's C-style quoting of a path (`"a\tb.md"`, `"caf\303\251.md"`); other text is returned as is. */
export function unquoteGitPath(text: string): string {
  if (!(text.startsWith('"') && text.endsWith('"') && text.length >= 2)) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index]!;
    if (char !== "\\") {
      for (const byte of Buffer.from(char, "utf8")) bytes.push(byte);
      continue;
    }
    const next = body[index + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      index += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      index += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

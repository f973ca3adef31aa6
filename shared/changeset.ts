/** The diff as data. Built by `cli/plan/`, read by detection and the runner. */
export type FileStatus =
  | "added"
  | "modified"
  | "deleted"
  | "renamed"
  | "copied"
  | "submodule"
  | "type_changed";

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The `@@ … @@ section` line. */
  header: string;
  /** Body lines with their ` `, `+`, `-` or `\` prefix, without line terminators. */
  lines: string[];
}

export interface ChangedFile {
  /** Path after the change (for deletions: the deleted path). */
  path: string;
  /** Path before the change, for renames and copies. */
  oldPath?: string;
  status: FileStatus;
  binary: boolean;
  hunks: Hunk[];
  /** This file's part of the unified diff, headers included; "" for binary files. */
  patch: string;
}

export type SymbolKind =
  | "function"
  | "class"
  | "method"
  | "interface"
  | "type"
  | "enum"
  | "constant"
  | "variable"
  | "export"
  | "flag"
  | "env"
  | "config"
  /** A member of an interface, type, option object or destructured options parameter. */
  | "member"
  /** A user-facing string (an error or log message) on a changed line. */
  | "message";

/** `doc`: only the declaration's doc comment changed (docs often mirror it word for word). */
export type SymbolChange = "added" | "removed" | "renamed" | "signature" | "body" | "doc";

export interface ChangedSymbol {
  name: string;
  kind: SymbolKind;
  change: SymbolChange;
  /** Repository-relative path of the file that declares or uses it. */
  file: string;
  /** 1-based line in the new file (or the old one, for removals). */
  line?: number;
  /** For renames: the name before. */
  oldName?: string;
  /** For members and config keys: the interface, type, object or function they belong to. */
  parent?: string | undefined;
  /** Private by its language's rule (Python `_x`, lowercase Go, non-`pub` Rust, unexported TS/JS): not surface the docs describe. */
  private?: boolean;
  /** For a function's or method's changed signature: only types changed, its parameters' names and defaults did not. */
  typesOnly?: boolean;
  /** For added members and keys: the other members of the same parent at head (an article that documents them documents the parent). */
  siblings?: string[];
}

export interface ChangeSet {
  base: string;
  head: string;
  files: ChangedFile[];
  symbols: ChangedSymbol[];
  /** Changed files left out because their diff (or the whole diff) was over a size cap. */
  skipped?: SkippedFile[];
  /** What reading the change could not do (a file nested too deep to parse), one line each. */
  warnings?: string[];
}

/** A changed file whose hunks were not read: `file_too_large` or `diff_too_large`. */
export interface SkippedFile {
  path: string;
  reason: "file_too_large" | "diff_too_large";
}

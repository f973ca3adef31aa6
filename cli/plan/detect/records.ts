import picomatch from "picomatch";
import type { ChangedFile } from "../../../shared/changeset.js";
import { DEFAULT_IGNORE_GLOBS } from "../../../shared/config.js";

/** Records of the past (changelogs, release notes, history files, changesets, migration guides), whatever their case. */
export const isRecord = picomatch(DEFAULT_IGNORE_GLOBS, { dot: true, nocase: true });

/** Names written as code in an entry: ``x``, `x`, or a Sphinx/MyST role :class:`x` / {func}`x`. */
const CODE_SPAN = /(?:``([^`\n]+)``|`([^`\n]+)`)/g;
/** What a code span must look like to be a name: an identifier, dotted or not, maybe called (`f()`). */
const NAME = /^[~!]?[A-Za-z_][\w.:-]*(?:\(\))?$/;
/** A record gaining more lines than this is a release's roll-up of many changes, not this change's entry. */
const MAX_ENTRY_LINES = 12;
/** Names taken from the entries of one change, at most. */
const MAX_RECORD_NAMES = 40;

/**
 * The names the change's own record entries write as code: the lines a changelog, release
 * note or changeset gains in the same change ("Added ``default_map`` splitting for
 * :class:`Tuple`"). The author names there what the change is about, in the words the
 * docs use. A dotted name counts as itself and as its last part (`click.echo`, `echo`).
 */
export function recordNames(files: readonly ChangedFile[]): { name: string; file: string }[] {
  const names = new Map<string, string>();
  for (const file of files) {
    if (file.binary || !isRecord(file.path)) continue;
    const added = file.hunks.reduce(
      (count, hunk) => count + hunk.lines.filter((line) => line[0] === "+").length,
      0,
    );
    if (added > MAX_ENTRY_LINES) continue;
    for (const hunk of file.hunks) {
      for (const line of hunk.lines) {
        if (line[0] !== "+") continue;
        for (const match of line.slice(1).matchAll(CODE_SPAN)) {
          const span = (match[1] ?? match[2] ?? "").trim();
          if (!NAME.test(span)) continue;
          const name = span.replace(/^[~!]/, "").replace(/\(\)$/, "");
          const last = name.split(/[.:]/).filter(Boolean).pop() ?? name;
          for (const each of new Set([name, last])) {
            if (names.size >= MAX_RECORD_NAMES) break;
            if (!names.has(each)) names.set(each, file.path);
          }
        }
      }
    }
  }
  return [...names].map(([name, file]) => ({ name, file }));
}

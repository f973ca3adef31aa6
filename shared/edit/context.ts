import type { LineIndex } from "../markdown/lines.js";
import type { ContextLine } from "./types.js";

/** Lines of context shown before and after an applied edit. */
export const CONTEXT_LINES = 3;
/** An edited span longer than this shows its first and last lines only in the context. */
const MAX_CONTEXT_EDITED_LINES = 30;

/** The edited lines startLine..endLine with their context, a long span shortened by a gap. */
export function editContext(lines: LineIndex, startLine: number, endLine: number): ContextLine[] {
  const from = Math.max(1, startLine - CONTEXT_LINES);
  const to = Math.min(lines.lineCount, endLine + CONTEXT_LINES);
  const take = (first: number, last: number): ContextLine[] => {
    const out: ContextLine[] = [];
    for (let line = first; line <= last; line++) out.push({ kind: "line", line, text: lines.lineText(line) });
    return out;
  };
  const edited = endLine - startLine + 1;
  if (edited <= MAX_CONTEXT_EDITED_LINES) return take(from, to);
  const half = MAX_CONTEXT_EDITED_LINES / 2;
  return [
    ...take(from, startLine + half - 1),
    { kind: "gap", hidden: edited - 2 * half },
    ...take(endLine - half + 1, to),
  ];
}

import { isMap, isScalar, isSeq, parseDocument, stringify } from "yaml";
import { parseFrontmatter, yamlNestingProblem } from "../../markdown/frontmatter.js";
import { dominantEol, LineIndex, withEol } from "../../markdown/lines.js";
import * as messages from "../messages.js";
import type { FrontmatterEdit, FrontmatterValue } from "../schema.js";
import { type EditProblem, reasonProblem, type StepResult } from "../step.js";

/** Long strings stay on one line: folding would rewrite more than the value. */
const STRINGIFY = { lineWidth: 0 } as const;

export function validateFrontmatter(edit: FrontmatterEdit): EditProblem {
  const reason = reasonProblem(edit);
  if (reason) return reason;
  if (Object.keys(edit.frontmatter).length === 0)
    return { code: "no_op", message: messages.emptyFrontmatterEdit };
  return null;
}

/**
 * Sets or removes top-level frontmatter keys. Only the bytes of the changed keys change:
 * the yaml Document locates each key and value, and the text is spliced there, so other
 * keys, comments, order and quoting keep their bytes. A missing block is created.
 */
export function frontmatterStep(content: string, edit: FrontmatterEdit): StepResult {
  const eol = dominantEol(content);
  const entries = Object.entries(edit.frontmatter);
  const frontmatter = parseFrontmatter(content);
  if (!frontmatter) {
    const set = Object.fromEntries(entries.filter(([, value]) => value !== null));
    if (Object.keys(set).length === 0)
      return {
        ok: false,
        code: "already_applied",
        message: messages.frontmatterAlreadySet(Object.keys(edit.frontmatter)),
      };
    const at = content.startsWith("\uFEFF") ? 1 : 0;
    const block = `---${eol}${withEol(stringify(set, STRINGIFY), eol)}---${eol}`;
    return { ok: true, changes: [{ start: at, end: at, text: block }] };
  }
  if (frontmatter.error)
    return {
      ok: false,
      code: "broken_frontmatter",
      message: messages.frontmatterUnparsable(frontmatter.error.line, frontmatter.error.message),
      citesLines: true,
    };
  const lines = new LineIndex(content);
  const bodyStart = lines.lineStart(frontmatter.startLine + 1);
  const bodyEnd = lines.lineStart(frontmatter.endLine);
  const before = content.slice(bodyStart, bodyEnd);
  let body = before;
  const changed: string[] = [];
  for (const [key, value] of entries) {
    const next = setKey(body, key, value, eol);
    if (!next.ok) return { ok: false, code: "frontmatter_not_object", message: next.message };
    if (next.body !== body) changed.push(key);
    body = next.body;
  }
  if (changed.length === 0)
    return {
      ok: false,
      code: "already_applied",
      message: messages.frontmatterAlreadySet(entries.map(([key]) => key)),
    };
  // One change: the span between the unchanged head and tail of the block.
  let head = 0;
  while (head < before.length && head < body.length && before[head] === body[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < body.length - head &&
    before[before.length - 1 - tail] === body[body.length - 1 - tail]
  )
    tail++;
  return {
    ok: true,
    changes: [{ start: bodyStart + head, end: bodyEnd - tail, text: body.slice(head, body.length - tail) }],
  };
}

type KeyResult = { ok: true; body: string } | { ok: false; message: string };

/** The frontmatter text `body` with top-level `key` set to `value` (null: removed). */
function setKey(body: string, key: string, value: FrontmatterValue, eol: "\n" | "\r\n"): KeyResult {
  // The YAML library recurses per level: text nested too deep is not handed to it.
  const tooDeep = yamlNestingProblem(body);
  if (tooDeep) return { ok: false, message: `The frontmatter ${tooDeep}; it cannot be edited.` };
  const document = parseDocument(body);
  const root = document.contents;
  if (root !== null && !isMap(root)) {
    const shape = isSeq(root) ? "list" : "value";
    return { ok: false, message: messages.frontmatterNotObject(shape) };
  }
  if (root?.flow) return { ok: false, message: messages.frontmatterNotObject("flow mapping") };
  const pair = root?.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
  const lines = new LineIndex(body);
  if (!pair) {
    if (value === null) return { ok: true, body };
    const text = withEol(stringify({ [key]: value }, STRINGIFY), eol);
    const separator = body.length > 0 && !body.endsWith("\n") ? eol : "";
    return { ok: true, body: body + separator + text };
  }
  const keyStart = pair.key.range[0];
  const valueEnd = Math.max(pair.value?.range[1] ?? 0, pair.key.range[1]);
  const current = isScalar(pair.value) || isSeq(pair.value) ? pair.value.toJSON() : undefined;
  if (value !== null && JSON.stringify(current) === JSON.stringify(value)) return { ok: true, body };
  const firstLine = lines.lineAt(keyStart);
  const lastLine = lines.lineAt(Math.max(keyStart, valueEnd - 1));
  const pairStart = lines.lineStart(firstLine);
  const pairEnd = lines.lineEnd(lastLine);
  if (value === null) return { ok: true, body: body.slice(0, pairStart) + body.slice(pairEnd) };
  if (isScalar(pair.value) && pair.value.value !== null && !Array.isArray(value)) {
    const [from, to] = pair.value.range;
    const scalarText = scalar(value, pair.value.type);
    if (scalarText !== null) return { ok: true, body: body.slice(0, from) + scalarText + body.slice(to) };
  }
  const indent = body.slice(pairStart, keyStart);
  let text = withEol(stringify({ [key]: value }, STRINGIFY), eol);
  if (/^[ \t]+$/.test(indent)) text = text.replace(/^(?=.)/gm, indent);
  // The last line of the block may lack its line ending; keep it so.
  if (pairEnd === body.length && !body.endsWith("\n")) text = text.slice(0, -eol.length);
  return { ok: true, body: body.slice(0, pairStart) + text + body.slice(pairEnd) };
}

/** A one-line scalar in the quoting style the old value used, or null when it needs more than one line. */
function scalar(value: string | number | boolean, style: string | undefined): string | null {
  if (typeof value === "string") {
    if (/[\r\n]/.test(value)) return null;
    if (style === "QUOTE_DOUBLE") return JSON.stringify(value);
    if (style === "QUOTE_SINGLE") return `'${value.replace(/'/g, "''")}'`;
  }
  const text = stringify(value, STRINGIFY).replace(/\n$/, "");
  return text.includes("\n") ? null : text;
}

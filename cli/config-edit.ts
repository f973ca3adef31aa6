import type { Dismissal } from "../shared/config.js";

/**
 * The config text with one more `dismissed` entry (pure). The rest of the file stays byte for
 * byte: the entry goes at the end of the `dismissed` list, or a new list goes at the end of the
 * top-level object, indented as the file is indented, with its line endings. Undefined when the
 * text is not one JSON object (the caller refuses it).
 */
export function withDismissal(text: string, entry: Dismissal): string | undefined {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const unit = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  const item = JSON.stringify(entry);
  const top = topLevel(text);
  if (top === undefined) return undefined;
  const list = top.keys.get("dismissed");
  if (list !== undefined) {
    if (text[list.start] !== "[") return undefined;
    const inside = text.slice(list.start + 1, list.end - 1);
    const before = text.slice(0, list.end - 1).trimEnd();
    const prefix = inside.trim() === "" ? "" : ",";
    return `${before}${prefix}${eol}${unit}${unit}${item}${eol}${unit}${text.slice(list.end - 1)}`;
  }
  const before = text.slice(0, top.close).trimEnd();
  const comma = top.keys.size > 0 ? "," : "";
  return `${before}${comma}${eol}${unit}"dismissed": [${eol}${unit}${unit}${item}${eol}${unit}]${eol}${text.slice(top.close)}`;
}

/** The top-level object's keys with the span of each value, and where its closing brace is. */
function topLevel(
  text: string,
): { keys: Map<string, { start: number; end: number }>; close: number } | undefined {
  const keys = new Map<string, { start: number; end: number }>();
  let index = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (text[index] !== "{") return undefined;
  index = skipSpace(text, index + 1);
  if (text[index] === "}") return { keys, close: index };
  for (;;) {
    if (text[index] !== '"') return undefined;
    const keyEnd = stringEnd(text, index);
    if (keyEnd === undefined) return undefined;
    const key = JSON.parse(text.slice(index, keyEnd)) as string;
    index = skipSpace(text, keyEnd);
    if (text[index] !== ":") return undefined;
    const start = skipSpace(text, index + 1);
    const end = valueEnd(text, start);
    if (end === undefined) return undefined;
    keys.set(key, { start, end });
    index = skipSpace(text, end);
    if (text[index] === "}") return { keys, close: index };
    if (text[index] !== ",") return undefined;
    index = skipSpace(text, index + 1);
  }
}

function skipSpace(text: string, index: number): number {
  while (index < text.length && /\s/.test(text[index]!)) index += 1;
  return index;
}

/** The index just past the string starting at `start`. */
function stringEnd(text: string, start: number): number | undefined {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === "\\") index += 1;
    else if (text[index] === '"') return index + 1;
  }
  return undefined;
}

/** The index just past the JSON value starting at `start`. */
function valueEnd(text: string, start: number): number | undefined {
  if (text[start] === '"') return stringEnd(text, start);
  if (text[start] !== "{" && text[start] !== "[") {
    const match = /^[^,}\]\s]+/.exec(text.slice(start));
    return match ? start + match[0].length : undefined;
  }
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      const end = stringEnd(text, index);
      if (end === undefined) return undefined;
      index = end - 1;
    } else if (char === "{" || char === "[") depth += 1;
    else if (char === "}" || char === "]") {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

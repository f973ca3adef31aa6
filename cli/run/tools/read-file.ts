import { articleFormat } from "../../../shared/formats/index.js";
import { findSection } from "../../../shared/markdown/outline.js";
import { readFileSpec } from "../../../shared/tools/read-file.js";
import { findDeclaration, readCodeDeclarations } from "./code-segments.js";
import { loadTextFile, splitLinesKeepingEnds } from "./common.js";
import { defineTool, fail, succeed, type ToolContext, type ToolResult } from "./define.js";

/** Room kept for the header line inside the result byte cap. */
const HEADER_ROOM = 300;

interface LoadedFile {
  path: string;
  content: string;
  hash: string;
}

export const readFileTool = defineTool(readFileSpec, async (args, context) => {
  const file = await loadTextFile(args.path, context);
  if (!file.ok) return file;
  const lines = splitLinesKeepingEnds(file.content);
  const total = lines.length;
  if (args.symbol !== undefined) {
    if (args.offset !== undefined || args.limit !== undefined) {
      return fail(
        "invalid_arguments",
        "read_file takes either symbol or offset/limit, not both. Ask for the symbol alone; its result names the offset for more.",
      );
    }
    return readSymbol(file, lines, args.symbol, context);
  }
  if (total === 0) return succeed(`${file.path} · empty file (0 lines) · hash ${file.hash}\n`);
  const offset = args.offset ?? 1;
  if (offset > total)
    return fail(
      "offset_out_of_range",
      `offset ${offset} is past the end of ${file.path}, which has ${total} lines. Use an offset from 1 to ${total}.`,
    );
  const wanted = Math.min(args.limit ?? context.limits.readPageLines, total - offset + 1);
  return succeed(page(file, lines, offset, wanted, context, { end: total }));
});

/** One declaration's lines (its segment: doc comment and decorators included), headed like any page. */
async function readSymbol(
  file: LoadedFile,
  lines: string[],
  symbol: string,
  context: ToolContext,
): Promise<ToolResult> {
  const declarations = await readCodeDeclarations(file.path, file.content);
  if (!Array.isArray(declarations) && declarations !== undefined) return declarations;
  const format = declarations ? null : articleFormat(file.path);
  if (format?.outline) {
    const found = findSection(format.outline(file.content), symbol);
    if (!found.ok) return fail("unknown_symbol", `${file.path}: ${found.message}`);
    const { section } = found;
    const wanted = Math.min(section.endLine - section.line + 1, context.limits.readPageLines);
    const label = `section ${section.path}, lines ${section.line}-${section.endLine}`;
    return succeed(page(file, lines, section.line, wanted, context, { end: section.endLine, label }));
  }
  if (!declarations) {
    return fail(
      "not_code",
      `${file.path} is not a code file Impact can read declarations from (TS/JS, Python, Go, Rust, Java, Ruby, C#, PHP). Call read_file without symbol, or use search_repo.`,
    );
  }
  const found = findDeclaration(declarations, symbol);
  if (!found.ok) {
    const listed = found.candidates.join(", ") || "(none: the file declares nothing)";
    return fail(
      "unknown_symbol",
      found.ambiguous
        ? `"${symbol}" names ${found.candidates.length} declarations in ${file.path}: ${listed}. Ask for one by its full path.`
        : `${file.path} declares no "${symbol}". Closest: ${listed}. Call outline_article on ${file.path} for all of them.`,
    );
  }
  const { declaration } = found;
  const wanted = Math.min(declaration.endLine - declaration.startLine + 1, context.limits.readPageLines);
  const label = `${declaration.kind} ${declaration.path}, lines ${declaration.startLine}-${declaration.endLine}`;
  return succeed(
    page(file, lines, declaration.startLine, wanted, context, { end: declaration.endLine, label }),
  );
}

/**
 * Lines `offset`… (at most `wanted`, and what fits the result cap) under one header line,
 * which names the offset to ask for next when the lines up to `end` did not all fit.
 */
function page(
  file: LoadedFile,
  lines: string[],
  offset: number,
  wanted: number,
  context: ToolContext,
  range: { end: number; label?: string },
): string {
  const total = lines.length;
  const budget = Math.max(context.limits.toolResultBytes - HEADER_ROOM, 1);
  let text = "";
  let bytes = 0;
  let count = 0;
  for (const line of lines.slice(offset - 1, offset - 1 + wanted)) {
    const size = Buffer.byteLength(line);
    if (count > 0 && bytes + size > budget) break;
    text += line;
    bytes += size;
    count += 1;
  }
  const last = offset + count - 1;
  let header = `${file.path} · lines ${offset}-${last} of ${total} · hash ${file.hash}`;
  if (range.label) header += ` · symbol ${range.label}`;
  if (bytes > budget) {
    // One line longer than the whole budget: the host's byte cap cuts it and says so.
    header += ` · line ${offset} is longer than ${budget} bytes and is cut`;
  }
  if (last < range.end) header += ` · more: call read_file with offset=${last + 1}`;
  return `${header}\n${text}`;
}

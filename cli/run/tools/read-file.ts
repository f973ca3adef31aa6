import { type ReadFileArgs, readFileSpec } from "../../../shared/tools/read-file.js";
import { loadTextFile, splitLinesKeepingEnds } from "./common.js";
import { defineTool, fail, succeed } from "./define.js";

/** Room kept for the header line inside the result byte cap. */
const HEADER_ROOM = 300;

export const readFileTool = defineTool(readFileSpec, async (args: ReadFileArgs, context) => {
  const file = await loadTextFile(args.path, context);
  if (!file.ok) return file;
  const lines = splitLinesKeepingEnds(file.content);
  const total = lines.length;
  if (total === 0) return succeed(`${file.path} · empty file (0 lines) · hash ${file.hash}\n`);
  const offset = args.offset ?? 1;
  if (offset > total)
    return fail(
      "offset_out_of_range",
      `offset ${offset} is past the end of ${file.path}, which has ${total} lines. Use an offset from 1 to ${total}.`,
    );
  const wanted = Math.min(args.limit ?? context.limits.readPageLines, total - offset + 1);
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
  if (bytes > budget) {
    // One line longer than the whole budget: the host's byte cap cuts it and says so.
    header += ` · line ${offset} is longer than ${budget} bytes and is cut`;
  }
  if (last < total) header += ` · more: call read_file with offset=${last + 1}`;
  return succeed(`${header}\n${text}`);
});

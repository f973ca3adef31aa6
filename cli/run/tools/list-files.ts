import { listFilesSpec } from "../../../shared/tools/list-files.js";
import { defineTool, fail, succeed } from "./define.js";
import { checkGlob, sandboxedFiles, visibleFiles } from "./files.js";

export const listFilesTool = defineTool(listFilesSpec, async (args, context) => {
  const glob = checkGlob(args.glob);
  if (!glob.ok) return fail("invalid_glob", glob.message);
  const matching = await sandboxedFiles((await visibleFiles(context)).filter(glob.match), context);
  if (matching.length === 0) {
    const hint = /[*?[{]/.test(args.glob)
      ? 'Try a wider glob, such as "**/*.md".'
      : `To list a folder, end the glob with "/**" ("${args.glob.replace(/\/+$/, "")}/**").`;
    return succeed(`No files match ${JSON.stringify(args.glob)}. ${hint}\n`);
  }
  const cap = context.limits.listFiles;
  const shown = matching.slice(0, cap);
  const note =
    matching.length > cap
      ? `\n[capped: ${cap} of ${matching.length} files shown; use a narrower glob to see the rest]\n`
      : "";
  return succeed(`${shown.join("\n")}\n${note}`);
});

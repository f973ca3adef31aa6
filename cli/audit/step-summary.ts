import { appendFile } from "node:fs/promises";

/**
 * Appends Markdown to the GitHub Actions job summary when `GITHUB_STEP_SUMMARY` is set.
 * Returns whether it wrote. `impact run` and `impact comment` call it. `markdown` may be a
 * function, so that outside Actions the summary is never rendered (nor its renderer loaded).
 */
export async function writeStepSummary(
  summary: string | (() => string | Promise<string>),
  env: Record<string, string | undefined>,
): Promise<boolean> {
  const path = env.GITHUB_STEP_SUMMARY;
  if (!path) return false;
  const markdown = typeof summary === "string" ? summary : await summary();
  await appendFile(path, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return true;
}

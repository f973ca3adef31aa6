import { appendFile } from "node:fs/promises";

/**
 * Appends Markdown to the GitHub Actions job summary when `GITHUB_STEP_SUMMARY` is set.
 * Returns whether it wrote. `impact run` and `impact comment` call it.
 */
export async function writeStepSummary(
  markdown: string,
  env: Record<string, string | undefined>,
): Promise<boolean> {
  const path = env.GITHUB_STEP_SUMMARY;
  if (!path) return false;
  await appendFile(path, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return true;
}

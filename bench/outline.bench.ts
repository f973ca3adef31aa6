import { outlineMarkdown } from "../shared/markdown/outline.js";
import { makeArticle, measure } from "./edit-engine.bench.js";

export async function run(): Promise<void> {
  const article = makeArticle();
  const outline = outlineMarkdown(article);
  const time = measure(9, () => outlineMarkdown(article));
  console.log(`article: ${(article.length / 1e6).toFixed(2)} MB, ${outline.sections.length} headings`);
  console.log(`outlineMarkdown: ${time.toFixed(1)} ms (median; goal < 100 ms)`);
  console.log(`ratio to the 100 ms goal: ${(time / 100).toFixed(2)}`);
}

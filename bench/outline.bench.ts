import { fromMarkdown } from "mdast-util-from-markdown";
import { frontmatterFromMarkdown } from "mdast-util-frontmatter";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { frontmatter } from "micromark-extension-frontmatter";
import { gfm } from "micromark-extension-gfm";
import { outlineMarkdown } from "../shared/markdown/outline.js";
import { makeArticle, measure } from "./edit-engine.bench.js";

const PARSER_SAMPLE_BYTES = 100_000;

export async function run(): Promise<void> {
  const article = makeArticle();
  const outline = outlineMarkdown(article);
  const time = measure(9, () => outlineMarkdown(article));
  console.log(`article: ${(article.length / 1e6).toFixed(2)} MB, ${outline.sections.length} headings`);
  console.log(`outlineMarkdown: ${time.toFixed(1)} ms (median; goal < 100 ms)`);
  console.log(`ratio to the 100 ms goal: ${(time / 100).toFixed(2)}`);

  // Why the outline is a block scanner (checked against mdast in test/outline.test.ts):
  // the full parser on a tenth of the article, for comparison.
  const sample = article.slice(0, PARSER_SAMPLE_BYTES);
  const parse = () =>
    fromMarkdown(sample, {
      extensions: [gfm(), frontmatter()],
      mdastExtensions: [gfmFromMarkdown(), frontmatterFromMarkdown()],
    });
  const parser = measure(1, parse);
  const scanner = measure(5, () => outlineMarkdown(sample));
  console.log(
    `first 100 KB: mdast-util-from-markdown + GFM ${parser.toFixed(0)} ms, outlineMarkdown ${scanner.toFixed(1)} ms (${(parser / scanner).toFixed(0)}×)`,
  );
}

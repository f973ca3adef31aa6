import { fromMarkdown } from "mdast-util-from-markdown";
import { frontmatterFromMarkdown } from "mdast-util-frontmatter";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { frontmatter } from "micromark-extension-frontmatter";
import { gfm } from "micromark-extension-gfm";
import { asciidocFormat, mdxFormat, rstFormat } from "../shared/formats/index.js";
import type { ArticleFormat } from "../shared/formats/types.js";
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

  // The other formats' outlines against the same goal, on articles of the same size.
  for (const [format, text] of [
    [rstFormat, repeatTo(article.length, rstChunk)],
    [asciidocFormat, `= Guide\n:toc:\n\n${repeatTo(article.length, asciidocChunk)}`],
    [mdxFormat, `import { Tabs } from "./tabs"\n\n${repeatTo(article.length, mdxChunk)}`],
  ] as [ArticleFormat, string][]) {
    const outline = format.outline!;
    const sections = outline(text).sections.length;
    const formatTime = measure(9, () => outline(text));
    // The Markdown scanner on the same text: the baseline the formats are held to.
    const baseline = measure(9, () => outlineMarkdown(text));
    console.log(
      `${format.name}: ${(text.length / 1e6).toFixed(2)} MB, ${sections} sections, ${formatTime.toFixed(1)} ms (median; goal < 100 ms); outlineMarkdown on the same text ${baseline.toFixed(1)} ms (${(formatTime / baseline).toFixed(2)}×)`,
    );
  }

  // Why the outline is a block scanner (checked against mdast in test/shared/markdown/outline.test.ts):
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

/** Chunks numbered `n` repeated until the text is `size` characters long. */
function repeatTo(size: number, chunk: (n: number) => string): string {
  const parts: string[] = [];
  let length = 0;
  for (let n = 1; length < size; n++) {
    const part = chunk(n);
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

/** A Sphinx page's section: titles of three styles, a directive, a literal block, a list, roles. */
function rstChunk(n: number): string {
  return `Section ${n}\n${"=".repeat(12)}\n\nSee :func:\`run_${n}\` and :ref:\`label-${n}\` for the options of the\ncommand line, which reads \`\`.env\`\` first.\n\n.. _label-${n}:\n\nDetails ${n}\n${"-".repeat(12)}\n\n.. code-block:: python\n\n   app = create_app(${n})\n   app.run()\n\nAn example::\n\n    $ flask run --debug\n    ~~~~~~~~~~~~~~~~~~~\n\nMore ${n}\n${"~".repeat(10)}\n\n- one item\n- another item\n\n.. note::\n\n   Notes are directive bodies.\n\n`;
}

function asciidocChunk(n: number): string {
  return `== Section ${n}\n\nSee <<_details_${n}>> for the options of the command line.\n\n=== Details ${n}\n\n[source,java]\n----\nApp app = new App(${n});\n== not a title\n----\n\n* one item\n* another item\n\n|===\n| a | b\n|===\n\n`;
}

function mdxChunk(n: number): string {
  return `## Section ${n}\n\nSee [the details](#details-${n}) and {props.value}.\n\n<Tabs>\n\n### Inside ${n}\n\n</Tabs>\n\n\`\`\`js\nconst app = create(${n});\n\`\`\`\n\n### Details ${n}\n\n- one item\n- another item\n\n`;
}

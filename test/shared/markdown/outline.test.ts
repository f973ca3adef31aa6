import fc from "fast-check";
import type { Heading, Root, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { frontmatterFromMarkdown } from "mdast-util-frontmatter";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { frontmatter } from "micromark-extension-frontmatter";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { scanFences } from "../../../shared/markdown/fences.js";
import { findSection, formatOutline, outlineMarkdown } from "../../../shared/markdown/outline.js";

/** The parser's options, built once: building them is most of a short document's parse. */
const PARSER_OPTIONS = {
  extensions: [gfm(), frontmatter()],
  mdastExtensions: [gfmFromMarkdown(), frontmatterFromMarkdown()],
};

/** What the real parser says: the top-level headings and their 1-based lines. */
function parserHeadings(content: string): { level: number; line: number }[] {
  const tree: Root = fromMarkdown(content, PARSER_OPTIONS);
  return tree.children
    .filter((node: RootContent): node is Heading => node.type === "heading")
    .map((node) => ({ level: node.depth, line: node.position!.start.line }));
}

function scannerHeadings(content: string): { level: number; line: number }[] {
  return outlineMarkdown(content).sections.map((section) => ({ level: section.level, line: section.line }));
}

const sample = [
  "---",
  "title: Guide",
  "attention:",
  "  - op: file",
  "    path: cli/run.ts",
  "---",
  "# Guide",
  "",
  "Intro.",
  "",
  "## Install",
  "",
  "```sh",
  "# not a heading",
  "npm i",
  "```",
  "",
  "Setext title",
  "------------",
  "",
  "<div>",
  "# not a heading either",
  "</div>",
  "",
  "## Install",
  "",
  "### Options ###",
  "text",
  "",
].join("\n");

describe("outlineMarkdown", () => {
  it("finds ATX and setext headings, skips code, HTML and frontmatter, disambiguates duplicates", () => {
    expect(
      formatOutline("docs/guide.md", sample).replace(/hash [0-9a-f]{16}/, "hash <hash>"),
    ).toMatchInlineSnapshot(`
        "docs/guide.md · 28 lines · hash <hash>
        frontmatter: lines 1-6
        Guide  (h1, lines 7-28)
          Guide::Install  (h2, lines 11-17)
          Guide::Setext title  (h2, lines 18-24)
          Guide::Install (2)  (h2, lines 25-28)
            Guide::Install (2)::Options  (h3, lines 27-28)"
      `);
    expect(outlineMarkdown(sample).sections.map((section) => section.bodyStartLine)).toEqual([
      8, 12, 20, 26, 28,
    ]);
    expect(scannerHeadings(sample)).toEqual(parserHeadings(sample));
  });

  it("counts lines the same with CRLF, a BOM and no final newline", () => {
    const content = "\uFEFF# A\r\n\r\ntext\r\n## B\r\nlast";
    const outline = outlineMarkdown(content);
    expect(outline.lineCount).toBe(5);
    expect(outline.sections.map((section) => [section.path, section.line, section.endLine])).toEqual([
      ["A", 1, 5],
      ["A::B", 4, 5],
    ]);
  });

  it("never throws on MDX", () => {
    const mdx =
      'import { Tabs } from "./tabs";\nexport const meta = {};\n\n# Title\n\n<Tabs items={["a"]}>\n  <Tab># inside</Tab>\n</Tabs>\n\n## Next {#next}\n';
    expect(outlineMarkdown(mdx).sections.map((section) => section.path)).toEqual([
      "Title",
      "Title::Next {#next}",
    ]);
  });

  it("ignores headings inside list items and block quotes, and a table row before ---", () => {
    const content = "- item\n  # inside\n\n> # quoted\n\n| a | b |\n| - | - |\n| c | d |\n---\n\n# Real\n";
    expect(scannerHeadings(content)).toEqual([{ level: 1, line: 11 }]);
    expect(scannerHeadings(content)).toEqual(parserHeadings(content));
  });

  it("agrees with mdast-util-from-markdown on generated documents", () => {
    // Known micromark quirks are left out (see the fc.pre lines); everything else must agree.
    const fragments: string[] = [
      "# Title",
      "## Section",
      "Setext",
      "===",
      "---",
      "- - -",
      "***",
      "",
      "",
      "```",
      "~~~",
      "````",
      "```js",
      "    code",
      "\tcode",
      "- item",
      "  continued",
      "    deep",
      "1. first",
      "2. second",
      "10. ten",
      "* star",
      "+ plus",
      "> quote",
      ">",
      "> ```",
      "> # q",
      "<div>",
      "</div>",
      "<!-- c",
      "-->",
      "<script>",
      "| a | b |",
      "|---|---|",
      "a | b",
      "--- | ---",
      "  # two",
      "   # three",
      "    # four",
      "  - nested",
      "  ```",
      "   ```",
      "Text",
      "\\# escaped",
      "#\tTab",
      "#",
      "## ##",
      "<?php",
      "?>",
      "- # item heading",
      "1) paren",
      "text  ",
      "- [ ] task",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 20 }), fc.boolean(), (parts, fm) => {
        const content = `${fm ? "---\na: 1\n---\n" : ""}${parts.join("\n")}\n`;
        // micromark quirk: after indented code (blank lines between or not), "2. x" or an empty
        // item does not start a list, as CommonMark says it does.
        fc.pre(!/^(?: {4}|\t).*\n(?:[ \t]*\n)*(?:[02-9]|1\d|[-*+][ \t]*$)/m.test(content));
        // micromark quirk: a table delimiter row after a lazy line leaves the list and can be setext text.
        fc.pre(!content.includes("|---|---|\n==="));
        // micromark-extension-frontmatter quirk: an unclosed "---" on line 1 disturbs the lines after it.
        fc.pre(fm || !content.startsWith("---"));
        expect(outlineMarkdown(content).sections.map((s) => ({ level: s.level, line: s.line }))).toEqual(
          parserHeadings(content),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("findSection", () => {
  const outline = outlineMarkdown(sample);

  it("finds a section by text, by ## text, by path and by path tail", () => {
    const pathOf = (query: string) => {
      const found = findSection(outline, query);
      return found.ok ? found.section.path : found.code;
    };
    expect(pathOf("Options")).toBe("Guide::Install (2)::Options");
    expect(pathOf("### Options")).toBe("Guide::Install (2)::Options");
    expect(pathOf("Guide::Install")).toBe("Guide::Install");
    expect(pathOf("Install (2)")).toBe("Guide::Install (2)");
    expect(pathOf("setext TITLE")).toBe("Guide::Setext title");
    expect(pathOf("## Options")).toBe("section_not_found");
  });

  it("lists the candidates of an ambiguous heading", () => {
    const found = findSection(outline, "Install");
    expect(found.ok ? "" : found.message).toMatchInlineSnapshot(`
      "section "Install" matches 2 sections; use one of these paths:
        Guide::Install (h2, line 11)
        Guide::Install (2) (h2, line 25)"
    `);
  });

  it("lists every section path when none matches", () => {
    const found = findSection(outline, "Usage");
    expect(found.ok ? "" : found.message).toMatchInlineSnapshot(`
      "section "Usage" not found. Available sections (path, level, line):
        Guide (h1, line 7)
        Guide::Install (h2, line 11)
        Guide::Setext title (h2, line 18)
        Guide::Install (2) (h2, line 25)
        Guide::Install (2)::Options (h3, line 27)"
    `);
  });
});

describe("code fences, one definition", () => {
  it("are the same fences for the outline and for the edit checks' scan", () => {
    const cases = [
      "```js\n# inside\n```\n# After\n",
      "``` js `x`\n# Not a fence\n",
      "~~~~\n# inside\n~~~\n# still inside\n~~~~~\n# After\n",
      "- item\n\n  ```\n  # inside\n  ```\n# After\n",
      "```\n# never closed\n",
    ];
    for (const content of cases) {
      const headings = outlineMarkdown(content).sections.map((section) => section.title);
      const fenced = scanFences(content).blocks.map(([start, end]) => content.slice(start, end));
      // A heading the outline sees is outside every block the scan found, and the other way round.
      for (const title of ["inside", "still inside", "never closed"])
        expect(headings.includes(title)).toBe(false);
      expect(fenced.some((block) => block.includes("# After"))).toBe(false);
      expect(fenced.every((block) => !headings.some((title) => block.includes(`# ${title}\n`)))).toBe(true);
    }
    expect(scanFences("``` js `x`\n# Not a fence\n").blocks).toEqual([]);
    expect(outlineMarkdown("``` js `x`\n# Not a fence\n").sections.map((section) => section.title)).toEqual([
      "Not a fence",
    ]);
  });
});

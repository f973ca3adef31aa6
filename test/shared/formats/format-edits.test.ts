import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { fromMarkdown } from "mdast-util-from-markdown";
import { frontmatterFromMarkdown } from "mdast-util-frontmatter";
import { mdxFromMarkdown } from "mdast-util-mdx";
import { frontmatter } from "micromark-extension-frontmatter";
import { mdxjs } from "micromark-extension-mdxjs";
import { describe, expect, it } from "vitest";
import { applyEdits } from "../../../shared/edit/engine.js";
import type { Edit } from "../../../shared/edit/schema.js";
import { asciidocFormat, mdxFormat, rstFormat } from "../../../shared/formats/index.js";
import type { ArticleFormat } from "../../../shared/formats/types.js";
import {
  asciidocDocumentArbitrary,
  type GeneratedDocument,
  mdxDocumentArbitrary,
  rstDocumentArbitrary,
} from "../../helpers/format-documents.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { impactEdit } from "../../helpers/impact-edit.js";

const CONTENT = "NEW LINE ONE\nNEW LINE TWO\n";

/**
 * A section edit changes only the bytes of its section: everything before its body and
 * everything after its end stays, and the new text lands between them. The section's
 * place comes from the generator, not from the outline under test.
 */
function sectionEditProperty(arbitrary: fc.Arbitrary<GeneratedDocument>, format: ArticleFormat) {
  fc.assert(
    fc.property(
      arbitrary,
      fc.nat(),
      fc.constantFrom("replace", "append", "prepend"),
      (document, pick, mode) => {
        const section = document.sections[pick % document.sections.length]!;
        // Titles are unique (they carry a counter), so the title names the section.
        const edit = { section: section.title, mode, content: CONTENT, reason: "property" } as Edit;
        const outcome = applyEdits(document.text, [edit], { format });
        if (!outcome.ok) throw new Error(outcome.error.message);
        const before = document.text.slice(0, section.bodyStart);
        const after = document.text.slice(section.end);
        expect(outcome.content.startsWith(before)).toBe(true);
        expect(outcome.content.endsWith(after)).toBe(true);
        const middle = outcome.content.slice(before.length, outcome.content.length - after.length);
        const old = document.text.slice(section.bodyStart, section.end);
        expect(middle).toContain(CONTENT);
        if (mode === "replace") expect(middle.trim()).toBe(CONTENT.trim());
        else expect(middle.replace(CONTENT, "")).toBe(old);
      },
    ),
    { numRuns: 200, seed: 20261127 },
  );
}

describe("section edits in other formats", () => {
  it("reST: replace, append and prepend change exactly the bytes of the named section", () => {
    sectionEditProperty(rstDocumentArbitrary, rstFormat);
  });

  it("AsciiDoc: replace, append and prepend change exactly the bytes of the named section", () => {
    sectionEditProperty(asciidocDocumentArbitrary, asciidocFormat);
  });

  it("MDX: replace, append and prepend change exactly the bytes of the named section", () => {
    sectionEditProperty(mdxDocumentArbitrary, mdxFormat);
  });
});

const CLI_RST = readFileSync(join(import.meta.dirname, "../..", "fixtures/formats/cli.rst"), "utf8");

describe("impact edit on a Sphinx page (flask's docs/cli.rst shape)", () => {
  it("replaces the dotenv section and nothing else: `~` underlines are no code fences", async () => {
    const repo = gitRepo({ "docs/cli.rst": CLI_RST });
    const result = await impactEdit(repo.dir, [
      "docs/cli.rst",
      "--section",
      "Environment Variables From dotenv",
      "--replace",
      "Flask reads ``.env`` files first.",
    ]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const after = readFileSync(join(repo.dir, "docs/cli.rst"), "utf8");
    const lines = CLI_RST.split("\n");
    const heading = lines.indexOf("Environment Variables From dotenv");
    const next = lines.indexOf("Environment Variables From virtualenv");
    // The body runs from after the underline and its blank line to the last text before the next title.
    let last = next - 1;
    while (lines[last] === "") last--;
    const expected = [
      ...lines.slice(0, heading + 3),
      "Flask reads ``.env`` files first.",
      ...lines.slice(last + 1),
    ].join("\n");
    expect(after).toBe(expected);
    expect(CLI_RST.split("\n").length - after.split("\n").length).toBe(last - (heading + 3));
  });

  it("lists all 16 sections of the page with their levels", () => {
    const outline = rstFormat.outline!(CLI_RST);
    expect(outline.sections.length).toBe(16);
    expect(outline.sections.find((section) => section.title === "Disable dotenv")?.path).toBe(
      "Command Line Interface::Environment Variables From dotenv::Disable dotenv",
    );
  });
});

describe("edits a format does not have are refused, nothing written", () => {
  it("a frontmatter edit (--set) on .rst and .adoc: never a YAML block", async () => {
    const adoc = "= Guide\n:toc:\n\n== Usage\n\nText.\n";
    const rst = ":orphan:\n\nGuide\n=====\n\nText.\n";
    const repo = gitRepo({ "docs/guide.rst": rst, "docs/guide.adoc": adoc });
    const onRst = await impactEdit(repo.dir, ["docs/guide.rst", "--set", "status=done"]);
    expect(onRst.code).toBe(1);
    expect(onRst.err).toContain(
      "frontmatter edits need YAML frontmatter, and this article is reStructuredText: its metadata is a field list, which edits do not write",
    );
    const onAdoc = await impactEdit(repo.dir, ["docs/guide.adoc", "--set", "status=done"]);
    expect(onAdoc.code).toBe(1);
    expect(onAdoc.err).toContain("this article is AsciiDoc: its metadata is a header attributes");
    expect(readFileSync(join(repo.dir, "docs/guide.rst"), "utf8")).toBe(rst);
    expect(readFileSync(join(repo.dir, "docs/guide.adoc"), "utf8")).toBe(adoc);
  });

  it("section, within, checklist and frontmatter edits on a .txt file name the format; a replace edit works", async () => {
    const text = "# Notes\n\n- [ ] one\n";
    const repo = gitRepo({ "notes.txt": text });
    for (const args of [
      ["--section", "Notes", "--append", "x"],
      ["--replace", "one", "two", "--within", "Notes"],
      ["--check", "one"],
      ["--set", "a=b"],
    ]) {
      const result = await impactEdit(repo.dir, ["notes.txt", ...args]);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.err).toContain("plain text (.txt)");
      expect(result.err).toContain("Nothing was changed");
    }
    expect(readFileSync(join(repo.dir, "notes.txt"), "utf8")).toBe(text);
    const replaced = await impactEdit(repo.dir, ["notes.txt", "--replace", "one", "two"]);
    expect(replaced.code).toBe(0);
    expect(readFileSync(join(repo.dir, "notes.txt"), "utf8")).toBe("# Notes\n\n- [ ] two\n");
  });
});

describe("MDX frontmatter", () => {
  it("a new block goes first, above the imports, where MDX reads frontmatter", () => {
    const text = 'import Tabs from "./tabs"\nexport const meta = {}\n\n# Guide\n\n<Tabs />\n';
    const outcome = applyEdits(text, [{ frontmatter: { title: "Guide" }, reason: "title" }], {
      format: mdxFormat,
    });
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.content).toBe(`---\ntitle: Guide\n---\n${text}`);
    const tree = fromMarkdown(outcome.content, {
      extensions: [mdxjs(), frontmatter()],
      mdastExtensions: [mdxFromMarkdown(), frontmatterFromMarkdown()],
    });
    expect(tree.children.map((node) => node.type)).toEqual([
      "yaml",
      "mdxjsEsm",
      "heading",
      "mdxJsxFlowElement",
    ]);
    // Right below the imports the block is not frontmatter but part of the ESM, which then fails to parse.
    const below = `${text.slice(0, 49)}---\ntitle: Guide\n---\n${text.slice(49)}`;
    expect(() =>
      fromMarkdown(below, {
        extensions: [mdxjs(), frontmatter()],
        mdastExtensions: [mdxFromMarkdown(), frontmatterFromMarkdown()],
      }),
    ).toThrow(/Could not parse import\/exports/);
  });
});

describe("checklists in MDX and AsciiDoc", () => {
  it.each([
    {
      format: mdxFormat,
      where: "inside JSX",
      text: "# Tasks\n\n- [ ] ship\n\n<Tabs>\n\n- [ ] ship it inside\n\n</Tabs>\n",
      item: "ship",
      tick: ["- [ ] ship\n", "- [x] ship\n"],
    },
    {
      format: asciidocFormat,
      where: "inside a listing block",
      text: "== Tasks\n\n* [ ] ship it\n\n----\n* [ ] ship it in an example\n----\n",
      item: "ship it",
      tick: ["* [ ] ship it\n\n", "* [x] ship it\n\n"],
    },
  ])("$format.name: ticks the article's item, not the one $where", ({ format, text, item, tick }) => {
    const outcome = applyEdits(text, [{ checklist_item: item, checked: true, reason: "done" }], { format });
    expect(outcome.ok && outcome.content).toBe(text.replace(tick[0]!, tick[1]!));
  });
});

describe("after-edit checks in other formats", () => {
  it("an AsciiDoc listing block left open is refused; a reST literal block never is", () => {
    const adoc = "== Usage\n\n----\ncode\n----\n";
    const open = applyEdits(adoc, [{ old_string: "code\n----\n", new_string: "code\n", reason: "r" }], {
      format: asciidocFormat,
    });
    expect(!open.ok && open.error.code).toBe("unclosed_code_fence");
    expect(!open.ok && open.error.message).toContain("delimited block opened at line 3");
    const rst = "Usage\n=====\n\nRun::\n\n   ```\n";
    const fine = applyEdits(rst, [{ old_string: "Run::", new_string: "Run it::", reason: "r" }], {
      format: rstFormat,
    });
    expect(fine.ok).toBe(true);
  });

  it("a :ref: whose .. _label: target the batch removes is a broken anchor", () => {
    const rst = ".. _usage:\n\nUsage\n=====\n\nSee :ref:`usage`.\n";
    const outcome = applyEdits(rst, [{ old_string: ".. _usage:\n\n", new_string: "", reason: "r" }], {
      format: rstFormat,
      guard: { articlePath: "docs/a.rst" },
    });
    expect(!outcome.ok && outcome.error.code).toBe("broken_anchor");
  });

  it("a new :doc: link to a page that does not exist is a broken link; one that exists is fine", () => {
    const rst = "Usage\n=====\n\nText.\n";
    const guard = { articlePath: "docs/usage.rst", pathExists: (path: string) => path === "docs/api.rst" };
    const broken = applyEdits(rst, [{ old_string: "Text.", new_string: "See :doc:`apis`.", reason: "r" }], {
      format: rstFormat,
      guard,
    });
    expect(!broken.ok && broken.error.message).toContain('the new link "apis.rst" points at docs/apis.rst');
    const fine = applyEdits(
      rst,
      [{ old_string: "Text.", new_string: "See :doc:`the API <api>`.", reason: "r" }],
      {
        format: rstFormat,
        guard,
      },
    );
    expect(fine.ok).toBe(true);
  });
});

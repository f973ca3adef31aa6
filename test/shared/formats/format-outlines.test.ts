import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { articleFormat, asciidocFormat, mdxFormat, rstFormat } from "../../../shared/formats/index.js";
import { LineIndex } from "../../../shared/markdown/lines.js";
import {
  asciidocDocumentArbitrary,
  type GeneratedDocument,
  mdxDocumentArbitrary,
  rstDocumentArbitrary,
} from "../../helpers/format-documents.js";
import {
  asciidoctorSections,
  docutilsPython,
  docutilsSections,
  mdxHeadings,
} from "../../helpers/reference-parsers.js";

/** Generated documents per format: enough to meet every block kind at every level many times. */
const DOCUMENTS = 300;
const SEED = 20261127;

function sample(arbitrary: fc.Arbitrary<GeneratedDocument>): GeneratedDocument[] {
  return fc.sample(arbitrary, { numRuns: DOCUMENTS, seed: SEED });
}

/** What the generator put in: each real section's level and heading line. */
function generated(document: GeneratedDocument): string[] {
  const lines = new LineIndex(document.text);
  return document.sections.map(
    (section) => `${section.level} ${lines.lineAt(section.start)} ${section.title}`,
  );
}

function outlined(
  format: {
    outline: ((text: string) => { sections: { level: number; line: number; title: string }[] }) | null;
  },
  text: string,
): string[] {
  return format.outline!(text).sections.map((section) => `${section.level} ${section.line} ${section.title}`);
}

/** Inline markup a reference parser drops from a title: ``code``, *emphasis*, roles. */
function plain(title: string): string {
  return title
    .replace(/:[\w:-]+:`([^`<]*?)\s*(?:<[^>]*>)?`/g, "$1")
    .replace(/[`*]/g, "")
    .trim();
}

const docutils = docutilsPython();
/** Said in the test's name, so a run without docutils shows why it skipped. */
const SKIPPED = docutils
  ? ""
  : " (skipped: python3-docutils is not installed; apt-get install python3-docutils)";

describe("reStructuredText outline", () => {
  it("reads the generated documents' sections, not the title-like lines in their blocks", () => {
    for (const document of sample(rstDocumentArbitrary))
      expect(outlined(rstFormat, document.text)).toEqual(generated(document));
  });

  it.skipIf(!docutils)(
    `agrees with docutils on every generated document (levels, underline lines, titles)${SKIPPED}`,
    () => {
      const documents = sample(rstDocumentArbitrary).map((document) => document.text);
      const reference = docutilsSections(documents);
      documents.forEach((text, index) => {
        const mine = rstFormat.outline!(text).sections.map(
          (section) => `${section.level} ${section.bodyStartLine - 1} ${plain(section.title)}`,
        );
        const theirs = reference[index]!.map(
          (section) => `${section.level} ${section.line} ${section.title}`,
        );
        expect(mine, text).toEqual(theirs);
      });
    },
  );

  it.skipIf(!docutils)(`agrees with docutils on hand-written edge cases${SKIPPED}`, () => {
    const cases = [
      "Title\n=====\n\nSub\n---\n\n=====\n Over\n=====\n\nBack\n----\n",
      "Short\n===\n\nLong enough\n====\n",
      "A paragraph\n---------\nwith more\n\nReal\n~~~~\n",
      "One\n===\n\nThree\n^^^^^\n\nTwo\n---\n\nThree again\n^^^^^^^^^^^\n",
      "One\n===\n\nTwo\n---\n\nDeep\n~~~~\n\nOne more\n========\n\nSkip\n~~~~\n",
      ":orphan:\n\nTitle\n=====\n\n.. code-block:: rst\n\n   Fake\n   ====\n\nText::\n\n   Fake\n   ----\n",
      "- item\nTitle\n=====\n\n.. note:: x\nAfter\n-----\n",
      "=====  =====\na      b\n=====  =====\nc      d\n=====  =====\n\nT\n=\n",
      "Title\n=====\n\n----\n\nText\n\n   Indented\n   --------\n",
      "``code`` title\n==============\n\n*emphasis* title\n----------------\n",
      "Title\n\t=====\n\nT2\n==\n",
    ];
    const reference = docutilsSections(cases);
    cases.forEach((text, index) => {
      const mine = rstFormat.outline!(text).sections.map(
        (section) => `${section.level} ${section.bodyStartLine - 1} ${plain(section.title)}`,
      );
      expect(mine, text).toEqual(reference[index]!.map((s) => `${s.level} ${s.line} ${s.title}`));
    });
  });

  it("keeps underlines of ~ and ^ from opening code fences, and reads levels in order of first appearance", () => {
    const text =
      "Guide\n=====\n\nIntro.\n\nSetup\n~~~~~\n\nSteps.\n\n=======\n Other\n=======\n\nDeep\n^^^^\n";
    expect(outlined(rstFormat, text)).toEqual(["1 1 Guide", "2 6 Setup", "3 11 Other", "4 15 Deep"]);
  });

  it("reads the top field list as metadata, labels as anchors, :ref: as links, API directives and roles as references", () => {
    const text =
      ":orphan:\n\n.. _usage:\n\nUsage\n=====\n\nSee :ref:`the usage <usage>` and :func:`~flask.redirect`.\n\n.. autofunction:: flask.url_for\n\n.. code-block:: rst\n\n   :func:`not_this`\n";
    expect(rstFormat.outline!(text).metadata).toEqual({ startLine: 1, endLine: 1, label: "field list" });
    expect([...rstFormat.anchors(text)]).toEqual(["usage"]);
    expect(rstFormat.links(text)).toEqual([{ target: "#usage", line: 8, image: false }]);
    expect(rstFormat.references(text).sort()).toEqual(["flask.redirect", "flask.url_for"]);
  });
});

describe("AsciiDoc outline", () => {
  it("reads the generated documents' sections, not the title-like lines in their blocks", () => {
    for (const document of sample(asciidocDocumentArbitrary))
      expect(outlined(asciidocFormat, document.text)).toEqual(generated(document));
  });

  it("agrees with Asciidoctor.js on every generated document", async () => {
    const documents = sample(asciidocDocumentArbitrary).map((document) => document.text);
    const reference = await asciidoctorSections(documents);
    documents.forEach((text, index) => {
      expect(outlined(asciidocFormat, text), text).toEqual(
        reference[index]!.map((section) => `${section.level} ${section.line} ${section.title}`),
      );
    });
  });

  it("agrees with Asciidoctor.js on hand-written edge cases", async () => {
    const cases = [
      "= Doc\n:toc:\n\n== One\n\ntext\n\n=== Two\n\n----\n== not\n----\n\n[discrete]\n== Disc\n\nTitle\n-----\n\nx\n",
      "Intro text\n== not a section\n\n== Section ==\n\n.Block title\n== After a block title\n",
      "= Doc\n\n[[id]]\n== With an anchor\n\n// comment\n== After a comment\n\n:attr: value\n== After an attribute\n",
      "== A\n\n....\n== literal\n\n....\n\n|===\n| == cell\n|===\n\n## Markdown style\n",
      "= Doc\n\n== A\n\n====\nunclosed\n",
    ];
    const reference = await asciidoctorSections(cases);
    cases.forEach((text, index) => {
      expect(outlined(asciidocFormat, text), text).toEqual(
        reference[index]!.map((section) => `${section.level} ${section.line} ${section.title}`),
      );
    });
  });

  it("reads header attributes as metadata, <<id>> as links, section ids and [[id]] as anchors, and finds unclosed blocks", () => {
    const text =
      "= Guide\n:toc:\n:icons: font\n\n[[setup]]\n== Set up\n\nSee <<setup>> and <<_set_up,here>>.\n";
    expect(asciidocFormat.outline!(text).metadata).toEqual({
      startLine: 2,
      endLine: 3,
      label: "header attributes",
    });
    expect(asciidocFormat.links(text).map((link) => link.target)).toEqual(["#setup", "#_set_up"]);
    expect(asciidocFormat.anchors(text)).toEqual(new Set(["_guide", "_set_up", "setup"]));
    expect(asciidocFormat.unclosedBlock("== A\n\n----\ncode\n")?.line).toBe(3);
    expect(asciidocFormat.unclosedBlock("== A\n\n----\ncode\n----\n")).toBeNull();
  });
});

describe("MDX outline", () => {
  it("reads the generated documents' sections: ESM, JSX blocks and expressions are opaque", () => {
    for (const document of sample(mdxDocumentArbitrary))
      expect(outlined(mdxFormat, document.text)).toEqual(generated(document));
  });

  it("agrees with MDX's parser on every generated document", () => {
    for (const document of sample(mdxDocumentArbitrary)) {
      const mine = mdxFormat.outline!(document.text).sections.map(
        (section) => `${section.level} ${section.line}`,
      );
      expect(mine, document.text).toEqual(mdxHeadings(document.text));
    }
  });

  it("keeps Markdown headings after JSX and ESM, and none inside them", () => {
    const text = `import A from "./a"\n\n<A>\n\n# Inside\n\n</A>\n\n# Outside\n\n{\n  "# no"\n}\n\n## Below\n`;
    expect(outlined(mdxFormat, text)).toEqual(["1 9 Outside", "2 15 Below"]);
    expect(mdxHeadings(text)).toEqual(["1 9", "2 15"]);
  });

  it("reads a fence that interrupts a paragraph as a fence, so a tag inside it opens no JSX block", () => {
    const text = "Some text\n```\n\n<Tabs>\n\n```\n\n# After\n";
    expect(outlined(mdxFormat, text)).toEqual(["1 8 After"]);
    expect(mdxHeadings(text)).toEqual(["1 8"]);
  });
});

describe("format registry", () => {
  it("never throws on arbitrary text, and every section lies inside the file", () => {
    const pieces = [
      "=",
      "-",
      "~",
      "^",
      "#",
      "`",
      "<",
      ">",
      "/",
      "{",
      "}",
      "'",
      '"',
      ":",
      ".",
      " ",
      "\t",
      "\n",
      "\r\n",
      "a",
      "::",
      ".. ",
      "----",
      "<A>",
      "</A>",
      "import x",
      "==== ",
      "[discrete]",
      "|===",
    ];
    const text = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (content) => {
        for (const format of [rstFormat, asciidocFormat, mdxFormat]) {
          const outline = format.outline!(content);
          for (const section of outline.sections) {
            expect(section.line).toBeGreaterThanOrEqual(1);
            expect(section.endLine).toBeLessThanOrEqual(
              Math.max(outline.lineCount, section.bodyStartLine - 1),
            );
            expect(section.bodyStartLine).toBeGreaterThan(section.line);
          }
          format.opaque(content);
          format.links(content);
          format.anchors(content);
          format.references(content);
          format.unclosedBlock(content);
        }
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  it("reads a title on the first line after a byte order mark, as the reference parsers do", () => {
    expect(outlined(rstFormat, "\uFEFFTitle\n=====\n\nText.\n")).toEqual(["1 1 Title"]);
    expect(outlined(asciidocFormat, "\uFEFF= Title\n\n== Part\n\nText.\n")).toEqual([
      "1 1 Title",
      "2 3 Part",
    ]);
  });

  it("reads mkdocstrings ::: lines in Markdown as references, not those in code", () => {
    const text =
      "# API\n\n::: flask.helpers.redirect\n\n```md\n::: not.this\n```\n\n:::note\nAn admonition.\n:::\n";
    expect(articleFormat("docs/api.md").references(text)).toEqual(["flask.helpers.redirect"]);
  });

  it("maps extensions to formats, and anything else to plain text", () => {
    expect(
      ["a.md", "b.MDX", "c.rst", "d.adoc", "e.asciidoc", "f.txt", "README"].map(
        (path) => articleFormat(path).name,
      ),
    ).toEqual([
      "Markdown",
      "MDX",
      "reStructuredText",
      "AsciiDoc",
      "AsciiDoc",
      "plain text (.txt)",
      "plain text",
    ]);
  });
});

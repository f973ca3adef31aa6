import fc from "fast-check";
import type { Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import {
  escapeHtml,
  inertMarkdown,
  oneLine,
  printable,
  printableBlock,
} from "../../../shared/render/escape.js";
import { codeCell, fence, inlineCode, plural, shortSha } from "../../../shared/render/markdown.js";

/** Strings built from the pieces attackers use: line breaks, HTML, Markdown and GitHub syntax. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "\r",
        "\n",
        "\r\n",
        "\u2028",
        "\u0085",
        "\v",
        "\f",
        "\u001b[2K",
        "\u202e",
        "\u200b",
        "<!--",
        "-->",
        "<h1>",
        "</details>",
        "<img src=x>",
        "&lt;",
        "|",
        "`",
        "```",
        "~~~",
        "*",
        "_",
        "[x](https://evil.example)",
        "![i](https://evil.example/i.png)",
        "@org/team",
        "@user",
        "owner/repo#12",
        "#7",
        "GH-3",
        "https://evil.example",
        "www.evil.example",
        "$x$",
        "\\",
        "::error::",
        "# ",
        "> ",
        "- ",
        " ",
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

/** GFM's parser options, built once: building them is most of a short document's parse. */
const GFM = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/**
 * Each property checks 300 hostile strings, BATCH to a document (each its own paragraph,
 * table row or fence, which a string breaking out of would show as a block too many or too
 * few): a parse's setup, most of a short document's, is paid once per BATCH strings.
 */
const BATCH = 20;
const RUNS = { numRuns: 300 / BATCH };
const batchOf = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH });

function parse(markdown: string): Root {
  return fromMarkdown(markdown, GFM);
}

function nodesOf(tree: Nodes): Nodes[] {
  const all: Nodes[] = [tree];
  if ("children" in tree) for (const child of tree.children) all.push(...nodesOf(child));
  return all;
}

function textOf(tree: Nodes): string {
  return nodesOf(tree)
    .map((node) => (node.type === "text" || node.type === "inlineCode" ? node.value : ""))
    .join("");
}

/** GitHub's mention, reference and autolink patterns, applied to rendered text. */
const GITHUB_LIVE = /(^|[^\w`])@[a-z0-9]|(^|\s)#\d|[\w.-]+\/[\w.-]+#\d|\bGH-\d|:\/\/|\bwww\./i;

describe("inertMarkdown", () => {
  it("renders as one paragraph of plain text with no HTML, link, image or GitHub reference", () => {
    fc.assert(
      fc.property(batchOf(hostile), (texts) => {
        const tree = parse(texts.map((text) => `before ${inertMarkdown(text)} after`).join("\n\n"));
        // One paragraph per text: none ran into the next or broke in two.
        expect(tree.children.map((node) => node.type)).toEqual(texts.map(() => "paragraph"));
        texts.forEach((text, index) => {
          const paragraph = tree.children[index]!;
          const kinds = new Set(nodesOf(paragraph).map((node) => node.type));
          for (const kind of ["html", "link", "image", "linkReference", "emphasis", "strong", "delete"]) {
            expect(kinds.has(kind as Nodes["type"]), `${kind} in ${JSON.stringify(text)}`).toBe(false);
          }
          const shown = textOf(paragraph);
          expect(shown).not.toMatch(GITHUB_LIVE);
          // What the reader sees is the text itself, on one line, less invisible characters.
          expect(shown.replace(/\u200b/g, "").replace(/ +/g, " ")).toBe(
            `before ${oneLine(text)} after`.replace(/ +/g, " "),
          );
        });
      }),
      RUNS,
    );
  });

  it("keeps a table row one row whatever a cell holds", () => {
    fc.assert(
      fc.property(batchOf(fc.tuple(hostile, hostile)), (rows) => {
        const body = rows.map(([path, reason]) => `| ${codeCell(path)} | ${inertMarkdown(reason)} |\n`);
        const tree = parse(`| a | b |\n|---|---|\n${body.join("")}`);
        expect(tree.children).toHaveLength(1);
        const table = tree.children[0];
        expect(table?.type).toBe("table");
        if (table?.type !== "table") return;
        expect(table.children).toHaveLength(rows.length + 1);
        rows.forEach(([path], index) => {
          const row = table.children[index + 1]!;
          expect(row.children, JSON.stringify(rows[index])).toHaveLength(2);
          const shown = textOf(row.children[0]!).replace(/\u200b/g, "");
          expect(shown).toBe(oneLine(path) === "" ? " " : oneLine(path));
        });
      }),
      RUNS,
    );
  });

  it("neutralises the examples from the red-team report", () => {
    expect(inertMarkdown("ping @org/team and see owner/repo#12, [here](https://evil.example)")).toBe(
      "ping @\u200borg/team and see owner/repo#\u200b12, \\[here\\](https:\u200b//evil.example)",
    );
    expect(inertMarkdown("docs/x\r\r<h1>FAKE\r\r<!--.md")).toBe("docs/x &lt;h1&gt;FAKE &lt;!--.md");
  });
});

describe("inlineCode and fence", () => {
  it("inline code shows the text on one line exactly, whatever backticks it holds", () => {
    fc.assert(
      fc.property(batchOf(hostile), (texts) => {
        const tree = parse(texts.map((text) => `x ${inlineCode(text)} y`).join("\n\n"));
        expect(tree.children).toHaveLength(texts.length);
        texts.forEach((text, index) => {
          const codes = nodesOf(tree.children[index]!).filter((node) => node.type === "inlineCode");
          expect(codes, JSON.stringify(text)).toHaveLength(1);
          expect(codes[0]?.type === "inlineCode" && codes[0].value).toBe(
            oneLine(text) === "" ? " " : oneLine(text),
          );
        });
      }),
      RUNS,
    );
  });

  it("a fence cannot be closed by its content and shows control characters as pictures", () => {
    fc.assert(
      fc.property(batchOf(hostile), (texts) => {
        const tree = parse(texts.map((text) => `${fence(text, "diff")}\n\nafter`).join("\n\n"));
        expect(tree.children.map((node) => node.type)).toEqual(texts.flatMap(() => ["code", "paragraph"]));
      }),
      RUNS,
    );
    expect(printableBlock("a\r\nb\rc\u001b[2Kd\n")).toBe("a\r\nb␍c␛[2Kd\n");
  });

  it("shortSha, plural", () => {
    expect(shortSha("0123456789abcdef0123456789abcdef01234567")).toBe("0123456789ab");
    expect(shortSha("diff:0123456789abcdef")).toBe("diff:0123456789abcdef");
    expect(plural(1, "edit")).toBe("1 edit");
    expect(plural(0, "edit")).toBe("0 edits");
    expect(plural(2, "match", "matches")).toBe("2 matches");
  });
});

/**
 * Any code point, lone surrogates included: the strings of fast-check's `unit: "binary"`,
 * without the table of 1.1 million entries it builds for that unit (seconds per test worker).
 */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

describe("escapeHtml and printable", () => {
  it("escapeHtml leaves no markup", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(escapeHtml(text)).not.toMatch(/[<>"']/);
        expect(escapeHtml(text).replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&");
      }),
    );
  });

  it("printable is one line with no control or invisible character, and maps back to one string", () => {
    fc.assert(
      fc.property(hostile, fc.string({ unit: anyCodePoint, maxLength: 20 }), (a, b) => {
        const shown = printable(a + b);
        expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e]/);
        const back = shown.replace(/\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[nrt\\])/g, (_match, sequence: string) => {
          if (sequence === "n") return "\n";
          if (sequence === "r") return "\r";
          if (sequence === "t") return "\t";
          if (sequence === "\\") return "\\";
          return String.fromCharCode(Number.parseInt(sequence.slice(1), 16));
        });
        expect(back).toBe(a + b);
      }),
    );
    expect(printable("docs/a\n::error::owned.md")).toBe("docs/a\\n::error::owned.md");
    expect(printable("x\u001b[2K\ry")).toBe("x\\x1b[2K\\ry");
  });
});

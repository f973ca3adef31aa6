import fc from "fast-check";

/**
 * Generated articles in reST, AsciiDoc and MDX for the format tests: a tree of sections
 * whose bodies hold the blocks that fool a Markdown reader (underlines of `~` and `^`,
 * directive bodies and delimited blocks with title-like lines, JSX with headings inside).
 * Each document comes with what it is made of: every real section's title, level, and the
 * offsets of its heading, body and end, so a test knows the answer without a parser.
 */
export interface GeneratedSection {
  title: string;
  level: number;
  /** Offsets: where the heading starts, where its body starts, where the section (subsections included) ends. */
  start: number;
  bodyStart: number;
  end: number;
}

export interface GeneratedDocument {
  text: string;
  sections: GeneratedSection[];
}

interface Node {
  children: Node[];
  blocks: number[];
}

const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"];

const nodeArbitrary: fc.Memo<Node> = fc.memo((depth) =>
  fc.record({
    blocks: fc.array(fc.nat(50), { minLength: 0, maxLength: 4 }),
    children: depth <= 1 ? fc.constant([]) : fc.array(nodeArbitrary(depth - 1), { maxLength: 2 }),
  }),
);

function word(seed: number, count = 2): string {
  const parts: string[] = [];
  for (let index = 0; index < count; index++) parts.push(WORDS[(seed * 7 + index * 3) % WORDS.length]!);
  return parts.join(" ");
}

/** Writes a tree of sections with `heading` and `block` and records where each section lies. */
function writeTree(
  roots: Node[],
  heading: (title: string, level: number) => string,
  block: (kind: number, level: number) => string,
  preamble: string,
): GeneratedDocument {
  let text = preamble;
  const sections: GeneratedSection[] = [];
  let counter = 0;
  const visit = (node: Node, level: number) => {
    counter++;
    const title = `${word(counter)} ${counter}`;
    const section: GeneratedSection = { title, level, start: text.length, bodyStart: 0, end: 0 };
    sections.push(section);
    text += heading(title, level);
    section.bodyStart = text.length;
    text += "\n";
    for (const kind of node.blocks) text += `${block(kind, level)}\n`;
    for (const child of node.children) visit(child, level + 1);
    section.end = text.length;
  };
  for (const root of roots) visit(root, 1);
  return { text, sections };
}

const RST_CHARS = ["=", "-", "~", "^", "*", "+", "#", '"', "`", ":"];

/** reStructuredText: one adornment style per level (some overlined), first appearance in level order. */
export const rstDocumentArbitrary: fc.Arbitrary<GeneratedDocument> = fc
  .record({
    roots: fc.array(nodeArbitrary(4), { minLength: 1, maxLength: 3 }),
    chars: fc.shuffledSubarray(RST_CHARS, { minLength: 4, maxLength: 4 }),
    overlined: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    fields: fc.boolean(),
    extra: fc.nat(10),
  })
  .map(({ roots, chars, overlined, fields, extra }) =>
    writeTree(
      roots,
      (title, level) => {
        const char = chars[level - 1]!;
        const rule = char.repeat(title.length + (extra % 3));
        return overlined[level - 1] ? `${rule}\n${title}\n${rule}\n` : `${title}\n${rule}\n`;
      },
      (kind, level) => {
        const fake = `${word(kind)}\n${"~".repeat(12)}`;
        switch (kind % 9) {
          case 0:
            return `${word(kind, 5)} and more text\nover two lines.\n`;
          case 1:
            return `.. code-block:: rst\n\n   ${fake.replace("\n", "\n   ")}\n`;
          case 2:
            return `An example::\n\n    ${fake.replace("\n", "\n    ")}\n    \`\`\`\n`;
          case 3:
            return `..\n   A comment\n   ${"^".repeat(9)}\n`;
          case 4:
            return `.. note::\n\n   ${word(kind)} :ref:\`target-${level}\`.\n`;
          case 5:
            return `- item one\n- item two\n\n  ${"-".repeat(5)}\n`;
          case 6:
            return `.. _target-${level}:\n`;
          case 7:
            return `${"-".repeat(8)}\n`;
          default:
            return `.. autofunction:: pkg.module.${word(kind, 1)}\n`;
        }
      },
      fields ? ":orphan:\n:tocdepth: 2\n\n" : "",
    ),
  );

/** AsciiDoc: a document title with header attributes, `==`… sections, delimited blocks with title-like lines. */
export const asciidocDocumentArbitrary: fc.Arbitrary<GeneratedDocument> = fc
  .record({
    root: nodeArbitrary(5),
    header: fc.boolean(),
  })
  .map(({ root, header }) => {
    const document = writeTree(
      [root],
      (title, level) =>
        `${"=".repeat(level)} ${title}\n${level === 1 && header ? ":toc:\n:icons: font\n" : ""}`,
      (kind, level) => {
        switch (kind % 8) {
          case 0:
            return `${word(kind, 5)} and more text.\n== not a title inside a paragraph\n`;
          case 1:
            return `[source,asciidoc]\n----\n== Inside a listing\n\n=== Still inside\n----\n`;
          case 2:
            return `====\n== Inside an example\n====\n`;
          case 3:
            return `[discrete]\n${"=".repeat(Math.min(level + 1, 6))} A discrete heading\n`;
          case 4:
            return `* item one\n* item two <<_${word(kind, 1)}>>\n`;
          case 5:
            return `// a comment\n|===\n| == cell | text\n|===\n`;
          case 6:
            return `....\n= literal\n....\n`;
          default:
            return `.A block title\n****\n${"=".repeat(3)} sidebar text\n****\n`;
        }
      },
      "",
    );
    // The body of the document title holds the header lines.
    return document;
  });

/** MDX: frontmatter, imports, JSX blocks (some with Markdown headings inside), expressions, fences. */
export const mdxDocumentArbitrary: fc.Arbitrary<GeneratedDocument> = fc
  .record({
    roots: fc.array(nodeArbitrary(4), { minLength: 1, maxLength: 3 }),
    frontmatter: fc.boolean(),
    imports: fc.boolean(),
  })
  .map(({ roots, frontmatter, imports }) => {
    let preamble = frontmatter ? "---\ntitle: Generated\n---\n\n" : "";
    if (imports) preamble += "import { Tabs, Tab } from './tabs'\nexport const meta = { a: 1 }\n\n";
    return writeTree(
      roots,
      (title, level) => `${"#".repeat(level)} ${title}\n`,
      (kind) => {
        switch (kind % 7) {
          case 0:
            return `${word(kind, 5)} with {1 + 1} inline.\n`;
          case 1:
            return `<Tabs>\n\n# Heading inside JSX\n\n<Tab label="a > b">\n\n## Also inside\n\n</Tab>\n</Tabs>\n`;
          case 2:
            return "```js\n# not a heading\n```\n";
          case 3:
            return `{\n  // an expression\n  "# not a heading"\n}\n`;
          case 4:
            return `<Note title={"x"} />\n`;
          case 5:
            return `- [ ] task ${word(kind, 1)}\n- [x] done\n`;
          default:
            return `<div>\n\n# In a div\n\n</div>\n`;
        }
      },
      preamble,
    );
  });

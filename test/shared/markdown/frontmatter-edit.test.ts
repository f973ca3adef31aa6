import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { applyEdits } from "../../../shared/edit/engine.js";
import type { FrontmatterValue } from "../../../shared/edit/schema.js";
import { parseFrontmatter } from "../../../shared/markdown/frontmatter.js";

const r = "The change renames the status.";

function edited(content: string, frontmatter: Record<string, FrontmatterValue>): string {
  const outcome = applyEdits(content, [{ frontmatter, reason: r }]);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.content;
}

function refused(
  content: string,
  frontmatter: Record<string, FrontmatterValue>,
): { code: string; message: string } {
  const outcome = applyEdits(content, [{ frontmatter, reason: r }]);
  if (outcome.ok) throw new Error("expected a refusal");
  return outcome.error;
}

describe("frontmatter edits", () => {
  it("sets, adds and removes keys, keeping comments, order and quoting of the rest", () => {
    const content =
      "---\ntitle: \"Hello\" # keep me\nstatus: draft\ntags:\n  - a\n  - b\nowner: 'me'\n---\n# Body\n";
    expect(edited(content, { status: "done", priority: 2, tags: ["x"], owner: null })).toMatchInlineSnapshot(`
      "---
      title: "Hello" # keep me
      status: done
      tags:
        - x
      priority: 2
      ---
      # Body
      "
    `);
  });

  it("keeps the quoting style of a value it changes", () => {
    expect(
      edited("---\ntitle: 'Old'\nname: \"a\"\n---\n", { title: "It's", name: 'say "hi"' }),
    ).toMatchInlineSnapshot(`
      "---
      title: 'It''s'
      name: "say \\"hi\\""
      ---
      "
    `);
  });

  it("creates the block when missing, after a BOM", () => {
    expect(edited("# No frontmatter\n", { status: "planned", created: "2024-01-05" })).toMatchInlineSnapshot(`
      "---
      status: planned
      created: 2024-01-05
      ---
      # No frontmatter
      "
    `);
    expect(edited("\uFEFF# T\r\n\r\ntext\r\n", { status: "planned" })).toBe(
      "\uFEFF---\r\nstatus: planned\r\n---\r\n# T\r\n\r\ntext\r\n",
    );
  });

  it("keeps CRLF line endings and a missing final newline of the block", () => {
    expect(edited("---\r\na: 1\r\nb: 2\r\n---\r\ntext\r\n", { a: 3, c: true })).toBe(
      "---\r\na: 3\r\nb: 2\r\nc: true\r\n---\r\ntext\r\n",
    );
    expect(edited("---\n---\nx", { a: 1 })).toMatchInlineSnapshot(`
      "---
      a: 1
      ---
      x"
    `);
  });

  it("quotes strings that would read as another type", () => {
    expect(edited("---\na: x\n---\n", { a: "123", b: "true", c: "a: b" })).toMatchInlineSnapshot(`
      "---
      a: "123"
      b: "true"
      c: "a: b"
      ---
      "
    `);
  });

  it("reports the changed lines", () => {
    const outcome = applyEdits("---\na: 1\nb: 2\nc: 3\n---\n# T\n", [{ frontmatter: { b: 5 }, reason: r }]);
    expect(outcome.ok && outcome.applied.map((edit) => [edit.kind, edit.startLine, edit.endLine])).toEqual([
      ["frontmatter", 3, 3],
    ]);
  });

  it("refuses frontmatter that is not key: value lines or does not parse, an empty edit, and an edit already applied", () => {
    const refusals: [string, Record<string, FrontmatterValue>][] = [
      ["---\n- a\n- b\n---\n", { a: 1 }],
      ["---\n{a: 1}\n---\n", { a: 2 }],
      ["---\njust a value\n---\n", { a: 2 }],
      ["---\na: [1\n---\n", { a: 2 }],
      ["---\na: 1\n---\n", {}],
      ["---\na: 1\n---\n", { a: 1, b: null }],
    ];
    expect(refusals.map(([content, frontmatter]) => refused(content, frontmatter))).toMatchInlineSnapshot(`
      [
        {
          "code": "frontmatter_not_object",
          "index": 0,
          "message": "Edit 0: the frontmatter is a list, not key: value lines, so keys cannot be set in it. Rewrite it as one key: value per line with a replace edit first.",
        },
        {
          "code": "frontmatter_not_object",
          "index": 0,
          "message": "Edit 0: the frontmatter is a flow mapping ({…} on one line), not key: value lines, so keys cannot be set in it. Rewrite it as one key: value per line with a replace edit first.",
        },
        {
          "code": "frontmatter_not_object",
          "index": 0,
          "message": "Edit 0: the frontmatter is a single value, not key: value lines, so keys cannot be set in it. Rewrite it as one key: value per line with a replace edit first.",
        },
        {
          "code": "broken_frontmatter",
          "index": 0,
          "message": "Edit 0: the frontmatter does not parse (line 2: Flow sequence in block collection must be sufficiently indented and end with a ]), so its keys cannot be set. Fix it with a replace edit first.",
        },
        {
          "code": "no_op",
          "index": 0,
          "message": "Edit 0: frontmatter names no key. Give at least one top-level key to set, or to remove with null.",
        },
        {
          "code": "already_applied",
          "index": 0,
          "message": "Edit 0: the frontmatter already has "a", "b" as asked: the edit looks already applied. Drop it from the batch.",
        },
      ]
    `);
  });
});

const keyArbitrary = fc.constantFrom(
  "title",
  "status",
  "priority",
  "tags",
  "created",
  "owner",
  "x-y",
  "draft",
);
const valueArbitrary: fc.Arbitrary<FrontmatterValue> = fc.oneof(
  fc.constantFrom(
    "done",
    "in progress",
    "2024-01-05",
    "a: b",
    "#no",
    "'q'",
    '"d"',
    "",
    "naïve",
    "123",
    "yes",
  ),
  fc.integer({ min: -5, max: 500 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.constantFrom("a", "b c", "1"), { maxLength: 3 }),
);
/** A top-level entry as people write it: plain, quoted, with a comment, or a block list. */
const entryArbitrary = fc.tuple(
  keyArbitrary,
  fc.constantFrom("plain", "double", "single", "comment", "list", "flowlist"),
  fc.constantFrom("v", "two words", "x1"),
);
const frontmatterArbitrary = fc
  .record({
    entries: fc.uniqueArray(entryArbitrary, { selector: ([key]) => key, maxLength: 6 }),
    comments: fc.boolean(),
    eol: fc.constantFrom("\n", "\r\n"),
  })
  .map(({ entries, comments, eol }) => {
    const lines = comments ? ["# header comment"] : [];
    for (const [key, style, value] of entries) {
      if (style === "plain") lines.push(`${key}: ${value}`);
      if (style === "double") lines.push(`${key}: "${value}"`);
      if (style === "single") lines.push(`${key}:   '${value}'`);
      if (style === "comment") lines.push(`${key}: ${value}  # about ${key}`);
      if (style === "list") lines.push(`${key}:`, `  - ${value}`, "  - other");
      if (style === "flowlist") lines.push(`${key}: [${value}, other]`);
    }
    return `---${eol}${lines.map((line) => line + eol).join("")}---${eol}# Body${eol}`;
  });

/** Every line of the block that is not a changed key's line. */
function untouchedLines(content: string, changed: Set<string>): string[] {
  const lines = content.split("\n");
  const out: string[] = [];
  let owner = "";
  for (const line of lines) {
    const key = /^([\w-]+):/.exec(line)?.[1];
    if (key) owner = key;
    else if (!/^\s+-/.test(line)) owner = "";
    if (!changed.has(owner)) out.push(line);
  }
  return out;
}

describe("frontmatter edit properties", () => {
  it("keeps every byte outside the changed keys, and the keys read back as set", () => {
    fc.assert(
      fc.property(
        frontmatterArbitrary,
        fc.dictionary(keyArbitrary, valueArbitrary, { minKeys: 1 }),
        (content, updates) => {
          const outcome = applyEdits(content, [{ frontmatter: updates, reason: r }]);
          const before = parse(parseFrontmatter(content)!.raw) ?? {};
          if (!outcome.ok) {
            // Only a batch that changes nothing is refused.
            expect(outcome.error.code).toBe("already_applied");
            for (const [key, value] of Object.entries(updates))
              expect(value === null ? key in before : before[key]).toEqual(value === null ? false : value);
            return;
          }
          const changed = new Set(Object.keys(updates));
          expect(untouchedLines(outcome.content, changed)).toEqual(untouchedLines(content, changed));
          const after = parse(parseFrontmatter(outcome.content)!.raw) ?? {};
          const expected = { ...before };
          for (const [key, value] of Object.entries(updates)) {
            if (value === null) delete expected[key];
            else expected[key] = value;
          }
          expect(after).toEqual(expected);
          expect(outcome.content.endsWith(`# Body${content.includes("\r\n") ? "\r\n" : "\n"}`)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

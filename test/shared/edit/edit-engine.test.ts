import { describe, expect, it } from "vitest";
import { applyEdits, formatEditSuccess } from "../../../shared/edit/engine.js";
import type { Edit } from "../../../shared/edit/types.js";
import { contentHash } from "../../../shared/hash.js";

const article = [
  "---",
  "title: Login",
  "attention:",
  "  - op: file",
  "    path: src/auth.ts",
  "---",
  "# Login",
  "",
  "Call `login(user)` to sign in.",
  "",
  "## Options",
  "",
  "| flag | meaning |",
  "| --- | --- |",
  "| `--user` | the user |",
  "",
  "---",
  "",
  "## Checklist",
  "",
  "- [ ] write tests",
  "- [x] ship it",
  "",
  "```ts",
  "login(user);",
  "```",
  "",
].join("\n");

function applied(content: string, edits: Edit[]): string {
  const outcome = applyEdits(content, edits);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.content;
}

function errorOf(content: string, edits: Edit[], options?: { expectedHash?: string }) {
  const outcome = applyEdits(content, edits, options);
  if (outcome.ok) throw new Error("expected the batch to fail");
  return outcome.error;
}

const r = "because the code changed";

describe("replace", () => {
  it("replaces one exact match and reports lines and hashes", () => {
    const outcome = applyEdits(article, [
      {
        old_string: "`login(user)`",
        new_string: "`login(user, options)`",
        reason: r,
        evidence: ["src/auth.ts:3"],
      },
    ]);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.content).toBe(article.replace("`login(user)`", "`login(user, options)`"));
    expect(outcome.hashBefore).toBe(contentHash(article));
    expect(outcome.hash).toBe(contentHash(outcome.content));
    expect(outcome.applied).toEqual([
      expect.objectContaining({
        index: 0,
        kind: "replace",
        startLine: 9,
        endLine: 9,
        evidence: ["src/auth.ts:3"],
      }),
    ]);
    expect(
      formatEditSuccess("docs/login.md", outcome).replace(/[0-9a-f]{16}/g, "<hash>"),
    ).toMatchInlineSnapshot(`
      "Edited docs/login.md: 1 edit applied.

      Edit 0 (replace): now line 9
        6 | ---
        7 | # Login
        8 | 
      > 9 | Call \`login(user, options)\` to sign in.
       10 | 
       11 | ## Options
       12 | 

      New hash: <hash> (was <hash>); pass it as expected_hash with your next edit_article call."
    `);
  });

  it("is literal: $&, $1 and $$ land as written", () => {
    expect(applied("price: X\n", [{ old_string: "X", new_string: "$& $1 $$ $`", reason: r }])).toBe(
      "price: $& $1 $$ $`\n",
    );
  });

  it("honours occurrence all, first, last and N", () => {
    const content = "a-a-a\n";
    const one = (occurrence: Edit extends never ? never : "all" | "first" | "last" | number) =>
      applied(content, [{ old_string: "a", new_string: "b", occurrence, reason: r }]);
    expect(one("all")).toBe("b-b-b\n");
    expect(one("first")).toBe("b-a-a\n");
    expect(one("last")).toBe("a-a-b\n");
    expect(one(2)).toBe("a-b-a\n");
  });

  it("narrows the search with within", () => {
    const content = "# A\n\nsame\n\n## B\n\nsame\n";
    expect(applied(content, [{ old_string: "same", new_string: "new", within: "A::B", reason: r }])).toBe(
      "# A\n\nsame\n\n## B\n\nnew\n",
    );
  });

  it("applies edits in order, each to the previous result", () => {
    const content = "one two\n";
    expect(
      applied(content, [
        { old_string: "one", new_string: "three", reason: r },
        { old_string: "three two", new_string: "done", reason: r },
      ]),
    ).toBe("done\n");
  });

  it("keeps CRLF, a BOM, a missing final newline, tabs and non-ASCII bytes", () => {
    const content = "\uFEFF# Tïtle\r\n\r\n\tcode\r\nmixed\nend é";
    expect(applied(content, [{ old_string: "mixed", new_string: "MIXED", reason: r }])).toBe(
      "\uFEFF# Tïtle\r\n\r\n\tcode\r\nMIXED\nend é",
    );
    // New text written with "\n" takes the CRLF of the text it replaces.
    expect(applied("a\r\nb\r\nc\r\n", [{ old_string: "a\r\nb", new_string: "a\nx\nb", reason: r }])).toBe(
      "a\r\nx\r\nb\r\nc\r\n",
    );
  });
});

describe("section", () => {
  const content = "# Doc\n\nIntro.\n\n## Usage\n\nRun it.\n\n### Flags\n\n- a\n\n## Last\n\nEnd.";

  it("replaces the body under the heading, subsections included, keeping blank lines around", () => {
    expect(applied(content, [{ section: "Usage", mode: "replace", content: "New body.", reason: r }])).toBe(
      "# Doc\n\nIntro.\n\n## Usage\n\nNew body.\n\n## Last\n\nEnd.",
    );
  });

  it("notes the subsections a section replace removed", () => {
    const outcome = applyEdits(content, [
      { section: "Usage", mode: "replace", content: "New body.", reason: r },
    ]);
    expect(outcome.ok && outcome.applied[0]!.note).toMatchInlineSnapshot(
      `"replace covered the whole section, so its subsection "Flags" was replaced too; if you meant only the text under the heading, redo the edit as a replace of that text."`,
    );
    const last = applyEdits(content, [{ section: "Last", mode: "replace", content: "New.", reason: r }]);
    expect(last.ok && last.applied[0]!.note).toBeUndefined();
  });

  it("appends at the end of the section, before the next heading of the same or higher level", () => {
    expect(applied(content, [{ section: "Usage::Flags", mode: "append", content: "- b\n", reason: r }])).toBe(
      "# Doc\n\nIntro.\n\n## Usage\n\nRun it.\n\n### Flags\n\n- a\n- b\n\n## Last\n\nEnd.",
    );
  });

  it("prepends right after the heading", () => {
    expect(applied(content, [{ section: "## Usage", mode: "prepend", content: "First.\n", reason: r }])).toBe(
      "# Doc\n\nIntro.\n\n## Usage\n\nFirst.\nRun it.\n\n### Flags\n\n- a\n\n## Last\n\nEnd.",
    );
  });

  it("appends at the end of the file for the last section, keeping the missing final newline", () => {
    expect(applied(content, [{ section: "Last", mode: "append", content: "More.", reason: r }])).toBe(
      `${content}\nMore.`,
    );
  });

  it("writes CRLF content into a CRLF article and handles setext headings", () => {
    const crlf = "Title\r\n=====\r\n\r\nOld.\r\n";
    expect(applied(crlf, [{ section: "Title", mode: "replace", content: "New\nlines", reason: r }])).toBe(
      "Title\r\n=====\r\n\r\nNew\r\nlines\r\n",
    );
  });
});

describe("checklist", () => {
  it("checks and unchecks the one matching item", () => {
    const checked = applied(article, [{ checklist_item: "write tests", checked: true, reason: r }]);
    expect(checked).toContain("- [x] write tests\n- [x] ship it");
    expect(applied(checked, [{ checklist_item: "ship", checked: false, reason: r }])).toContain(
      "- [ ] ship it",
    );
  });
});

describe("rejections", () => {
  const cases: [string, Edit[]][] = [
    ["empty old_string", [{ old_string: "", new_string: "x", reason: r }]],
    ["old_string equals new_string", [{ old_string: "Login", new_string: "Login", reason: r }]],
    ["missing reason", [{ old_string: "Login", new_string: "Sign in", reason: "  " }]],
    [
      "placeholder",
      [
        {
          old_string: "Call `login(user)` to sign in.",
          new_string: "Call `login()`.\n... rest unchanged",
          reason: r,
        },
      ],
    ],
    [
      "placeholder in section content",
      [{ section: "Options", mode: "replace", content: "(unchanged)", reason: r }],
    ],
    ["empty append", [{ section: "Options", mode: "append", content: "", reason: r }]],
    ["broken frontmatter", [{ old_string: "title: Login", new_string: "title: [Login", reason: r }]],
    ["removed frontmatter", [{ old_string: "---\ntitle", new_string: "title", reason: r }]],
    ["unclosed code fence", [{ old_string: "login(user);\n```", new_string: "login(user);", reason: r }]],
    ["not unique", [{ old_string: "login(user)", new_string: "login()", reason: r }]],
    [
      "occurrence out of range",
      [{ old_string: "login(user)", new_string: "login()", occurrence: 3, reason: r }],
    ],
    ["section not found", [{ section: "Usage", mode: "append", content: "x", reason: r }]],
    ["within not found", [{ old_string: "x", new_string: "y", within: "Nowhere", reason: r }]],
    ["checklist item not found", [{ checklist_item: "deploy", checked: true, reason: r }]],
    ["checklist item ambiguous", [{ checklist_item: "t", checked: true, reason: r }]],
    ["checklist already set", [{ checklist_item: "ship", checked: true, reason: r }]],
    [
      "already applied",
      [{ old_string: "Call `signIn(user)` now.", new_string: "Call `login(user)` to sign in.", reason: r }],
    ],
    [
      "consumed by an earlier edit",
      [
        { old_string: "Call `login(user)` to sign in.", new_string: "Call `signIn(user)`.", reason: r },
        { old_string: "to sign in", new_string: "to log in", reason: r },
      ],
    ],
  ];
  const messages = Object.fromEntries(cases.map(([name, edits]) => [name, errorOf(article, edits)]));

  it("names every rejection with its code and the failing edit", () => {
    expect(
      Object.fromEntries(
        Object.entries(messages).map(([name, error]) => [name, `${error.code} @ ${error.index}`]),
      ),
    ).toMatchInlineSnapshot(`
        {
          "already applied": "already_applied @ 0",
          "broken frontmatter": "broken_frontmatter @ 0",
          "checklist already set": "already_applied @ 0",
          "checklist item ambiguous": "checklist_item_ambiguous @ 0",
          "checklist item not found": "checklist_item_not_found @ 0",
          "consumed by an earlier edit": "consumed_by_earlier_edit @ 1",
          "empty append": "no_op @ 0",
          "empty old_string": "empty_old_string @ 0",
          "missing reason": "missing_reason @ 0",
          "not unique": "not_unique @ 0",
          "occurrence out of range": "occurrence_out_of_range @ 0",
          "old_string equals new_string": "no_op @ 0",
          "placeholder": "placeholder @ 0",
          "placeholder in section content": "placeholder @ 0",
          "removed frontmatter": "broken_frontmatter @ 0",
          "section not found": "section_not_found @ 0",
          "unclosed code fence": "unclosed_code_fence @ 0",
          "within not found": "section_not_found @ 0",
        }
      `);
  });

  it("explains each rejection so the model can act on it", () => {
    expect(Object.values(messages).map((error) => error.message)).toMatchInlineSnapshot(`
      [
        "Edit 0: old_string is empty. Give the exact text to replace; to add text, include a neighbouring line in old_string and new_string, or use a section edit with mode append or prepend.",
        "Edit 0: old_string and new_string are identical, so the edit changes nothing. Drop it or write the new text.",
        "Edit 0: reason is missing. Every edit needs one sentence saying which code change makes it necessary.",
        "Edit 0: the new text contains the placeholder "... rest unchanged". Edits replace text literally, so the placeholder would land in the article. Write out the full text instead, or make the edit smaller so it covers only what changes.",
        "Edit 0: the new text contains the placeholder "(unchanged)". Edits replace text literally, so the placeholder would land in the article. Write out the full text instead, or make the edit smaller so it covers only what changes.",
        "Edit 0: content is empty, so append adds nothing. Drop the edit or write the content.",
        "Edit 0: the edit breaks the YAML frontmatter (line 3: Flow sequence in block collection must be sufficiently indented and end with a ]); keep it valid YAML between the --- lines",
        "Edit 0: the edit removes the frontmatter's opening --- line; keep the frontmatter (lines 1-6) intact",
        "Edit 0: the edit leaves the code fence opened at line 24 unclosed; every \`\`\` or ~~~ fence needs its closing line",
        "Edit 0: old_string matches 2 times (lines 9, 25); it must match exactly once. Add the heading or a neighbouring line to old_string so it is unique, set within to a section path, or set occurrence ("all", "first", "last" or N).",
        "Edit 0: occurrence 3 asked for, but old_string matches only 2 times (lines 9, 25).",
        "Edit 0: section "Usage" not found. Available sections (path, level, line):
        Login (h1, line 7)
        Login::Options (h2, line 11)
        Login::Checklist (h2, line 19)",
        "Edit 0: within: section "Nowhere" not found. Available sections (path, level, line):
        Login (h1, line 7)
        Login::Options (h2, line 11)
        Login::Checklist (h2, line 19)",
        "Edit 0: no checklist item contains "deploy". The checklist items are:
        line 21: [ ] write tests
        line 22: [x] ship it",
        "Edit 0: 2 checklist items contain "t"; give text found in only one of them:
        line 21: [ ] write tests
        line 22: [x] ship it",
        "Edit 0: the checklist item at line 22 ("ship it") is already checked. Drop this edit from the batch.",
        "Edit 0: old_string is not in the article, but new_string is, at line 9: this edit looks already applied. Drop it from the batch.",
        "Edit 1: old_string is no longer in the article: edit 0 of this batch already changed that text (it was at line 9 before the batch). Write this edit against the text as edit 0 leaves it, or merge the two edits into one.",
      ]
    `);
  });

  it("fails on a stale expected_hash with the current hash", () => {
    const error = errorOf(article, [{ old_string: "Login", new_string: "Sign in", reason: r }], {
      expectedHash: "0000000000000000",
    });
    expect(error.message.replaceAll(contentHash(article), "<current>")).toMatchInlineSnapshot(
      `"expected_hash 0000000000000000 does not match the article's current hash <current>: the article changed since you read it. Read it again (or use hash <current>) and redo the edits against its current text."`,
    );
    expect(error.index).toBeNull();
  });

  it("names the edit that breaks the structure, not the last one", () => {
    const error = errorOf(article, [
      { old_string: "login(user);\n```", new_string: "login(user);", reason: r },
      { old_string: "# Login", new_string: "# Sign in", reason: r },
    ]);
    expect([error.code, error.index]).toEqual(["unclosed_code_fence", 0]);
  });

  it("leaves everything unapplied when a later edit fails", () => {
    const outcome = applyEdits(article, [
      { old_string: "# Login", new_string: "# Sign in", reason: r },
      { old_string: "absent text here", new_string: "x", reason: r },
    ]);
    expect(outcome.ok).toBe(false);
    expect(outcome).not.toHaveProperty("content");
  });
});

describe("not found diagnostics", () => {
  const content = [
    "# Guide",
    "",
    "Don\u2019t use the \u201Cold\u201D flag \u2014 it is gone.",
    "",
    "    indented line",
    "Path: C:\\\\temp\\_x",
    "Caf\u00E9 menu",
    "UPPER case",
    "",
  ].join("\r\n");
  const near = (old: string) => {
    const error = errorOf(content, [{ old_string: old, new_string: "replacement text", reason: r }]);
    const [first, second] = error.message.split("\n");
    return `${first}\n${second}`;
  };

  it("names the kind of near-miss and its line", () => {
    expect({
      quotes: near('Don\'t use the "old" flag - it is gone.'),
      endings: near("# Guide\n\nDon"),
      indentation: near("      indented line\r\nPath"),
      whitespace: near("Don’t  use the “old” flag —\tit is gone."),
      escaping: near("Path: C:\\temp\\_x"),
      unicode: near("Cafe\u0301 menu"),
      case: near("upper CASE"),
    }).toMatchInlineSnapshot(`
      {
        "case": "Edit 0: old_string not found.
      Closest near-miss at line 8: it differs in case. The exact text there, to copy into old_string:",
        "endings": "Edit 0: old_string not found.
      Closest near-miss at line 1: it differs in line endings. The exact text there, to copy into old_string:",
        "escaping": "Edit 0: old_string not found.
      Closest near-miss at line 6: it differs in escaping. The exact text there, to copy into old_string:",
        "indentation": "Edit 0: old_string not found.
      Closest near-miss at line 5: it differs in indentation. The exact text there, to copy into old_string:",
        "quotes": "Edit 0: old_string not found.
      Closest near-miss at line 3: it differs in quotes/dashes/non-breaking spaces. The exact text there, to copy into old_string:",
        "unicode": "Edit 0: old_string not found.
      Closest near-miss at line 7: it differs in Unicode normalization. The exact text there, to copy into old_string:",
        "whitespace": "Edit 0: old_string not found.
      Closest near-miss at line 3: it differs in whitespace. The exact text there, to copy into old_string:",
      }
    `);
  });

  it("shows the exact text to copy and the start of the article", () => {
    expect(
      errorOf(content, [{ old_string: "upper CASE", new_string: "x y z", reason: r }]).message,
    ).toMatchInlineSnapshot(`
        "Edit 0: old_string not found.
        Closest near-miss at line 8: it differs in case. The exact text there, to copy into old_string:
        ----- exact text -----
        UPPER case
        ----- end -----
        The article starts with (first 500 characters):
        ----- article start -----
        # Guide

        Don’t use the “old” flag — it is gone.

            indented line
        Path: C:\\\\temp\\_x
        Café menu
        UPPER case

        ----- end -----"
      `);
  });

  it("points at a line of old_string that does occur when the whole does not", () => {
    expect(
      errorOf(content, [
        { old_string: "Café menu\r\nlower words that are not there", new_string: "new text", reason: r },
      ]).message.split("\n----- article start")[0],
    ).toMatchInlineSnapshot(`
      "Edit 0: old_string not found.
      No near-miss for the whole text, but line 1 of old_string is at line 7 of the article; the text around it differs. Lines 7-8 of the article, exactly:
      ----- exact text -----
      Café menu
      UPPER case
      ----- end -----
      The article starts with (first 500 characters):"
    `);
  });

  it("says when nothing resembles old_string", () => {
    expect(
      errorOf(content, [{ old_string: "zzzz qqqq", new_string: "new", reason: r }]).message.split("\n")[1],
    ).toMatchInlineSnapshot(
      `"No near-miss either: nothing in the article resembles it. Read the article again before editing."`,
    );
  });
});

describe("line ranges and context", () => {
  it("keeps earlier edits' line ranges right when later edits add lines above them", () => {
    const content = "one\ntwo\nthree\nfour\n";
    const outcome = applyEdits(content, [
      { old_string: "four", new_string: "FOUR", reason: r },
      { old_string: "one\n", new_string: "zero\nhalf\none\n", reason: r },
    ]);
    expect(outcome.ok && outcome.applied.map((edit) => [edit.index, edit.startLine, edit.endLine])).toEqual([
      [0, 6, 6],
      [1, 1, 3],
    ]);
  });

  it("spans every match of occurrence all", () => {
    const outcome = applyEdits("x\na\nx\nb\nx\n", [
      { old_string: "x", new_string: "y", occurrence: "all", reason: r },
    ]);
    expect(outcome.ok && [outcome.applied[0]!.startLine, outcome.applied[0]!.endLine]).toEqual([1, 5]);
  });

  it("shortens the context of a long edit", () => {
    const body = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join("\n");
    const outcome = applyEdits(`# T\n\nold\n`, [{ old_string: "old", new_string: body, reason: r }]);
    if (!outcome.ok) throw new Error(outcome.error.message);
    const text = formatEditSuccess("docs/t.md", outcome).replace(/[0-9a-f]{16}/g, "<hash>");
    expect(text.split("\n").slice(0, 6).concat(text.split("\n").slice(16, 22))).toMatchInlineSnapshot(`
      [
        "Edited docs/t.md: 1 edit applied.",
        "",
        "Edit 0 (replace): now lines 3-42",
        "  1 | # T",
        "  2 | ",
        "> 3 | line 1",
        ">14 | line 12",
        ">15 | line 13",
        ">16 | line 14",
        ">17 | line 15",
        "    ⋮ 10 more edited lines",
        ">28 | line 26",
      ]
    `);
  });

  it("gives the context as numbered lines, a long edit's middle as one gap", () => {
    const body = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join("\n");
    const outcome = applyEdits(`# T\n\nold\n`, [{ old_string: "old", new_string: body, reason: r }]);
    if (!outcome.ok) throw new Error(outcome.error.message);
    const context = outcome.applied[0]!.context;
    expect(context.filter((entry) => entry.kind === "gap")).toEqual([{ kind: "gap", hidden: 10 }]);
    expect(context[0]).toEqual({ kind: "line", line: 1, text: "# T" });
    expect(context.at(-1)).toEqual({ kind: "line", line: 42, text: "line 40" });
    expect(context.filter((entry) => entry.kind === "line")).toHaveLength(32);
  });

  it("numbers lines after earlier edits in error messages", () => {
    const error = errorOf("a\nb\nb\n", [
      { old_string: "a\n", new_string: "new\nlines\na\n", reason: r },
      { old_string: "b", new_string: "c", reason: r },
    ]);
    expect(error.message).toMatchInlineSnapshot(`
      "Edit 1: old_string matches 2 times (lines 4, 5); it must match exactly once. Add the heading or a neighbouring line to old_string so it is unique, set within to a section path, or set occurrence ("all", "first", "last" or N).
      (Line numbers are those of the article after edit 0 of this batch.)"
    `);
  });
});

describe("edge cases", () => {
  it("allows a placeholder-like phrase the article already has", () => {
    const content = "Status: (unchanged)\nNext\n";
    expect(applied(content, [{ old_string: "Next", new_string: "Then (unchanged)", reason: r }])).toBe(
      "Status: (unchanged)\nThen (unchanged)\n",
    );
  });

  it("ignores checklist items inside code fences", () => {
    const content = "```md\n- [ ] sample\n```\n- [ ] real sample\n";
    expect(applied(content, [{ checklist_item: "sample", checked: true, reason: r }])).toBe(
      "```md\n- [ ] sample\n```\n- [x] real sample\n",
    );
  });

  it("notices an edit whose new_string wraps old_string and is already there", () => {
    const error = errorOf("Run `impact run --all` now.\n", [
      { old_string: "`impact run", new_string: "`impact run --all", occurrence: "first", reason: r },
    ]);
    expect(error.message).toMatchInlineSnapshot(
      `"Edit 0: new_string already stands at line 1, around old_string: this edit looks already applied. Drop it from the batch."`,
    );
    expect(
      applied("Run `impact run` now.\n", [{ old_string: "run`", new_string: "run --all`", reason: r }]),
    ).toBe("Run `impact run --all` now.\n");
  });

  it("does not call a short new_string already applied", () => {
    expect(errorOf("version 2\n", [{ old_string: "version 1", new_string: "2", reason: r }]).code).toBe(
      "not_found",
    );
  });

  it("appends under a heading that ends the file without a newline", () => {
    expect(applied("# Doc", [{ section: "Doc", mode: "append", content: "Body.\n", reason: r }])).toBe(
      "# Doc\nBody.",
    );
  });

  it("searches only the within section and says so when the text is elsewhere", () => {
    const error = errorOf("# A\n\nalpha text\n\n# B\n\nbeta\n", [
      { old_string: "alpha text", new_string: "gamma text", within: "B", reason: r },
    ]);
    expect(error.message.split("\n").slice(0, 2)).toMatchInlineSnapshot(`
      [
        "Edit 0: old_string not found within section "B" (lines 5-7).",
        "It does occur outside that section, at line 3: fix or drop within if that is the place.",
      ]
    `);
  });

  it("applies no edit of an empty batch and keeps the hash", () => {
    const outcome = applyEdits("same\n", []);
    expect(outcome.ok && [outcome.applied.length, outcome.hash === outcome.hashBefore]).toEqual([0, true]);
  });
});

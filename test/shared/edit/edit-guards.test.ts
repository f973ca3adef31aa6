import { describe, expect, it } from "vitest";
import { applyEdits } from "../../../shared/edit/engine.js";
import type { EditGuard } from "../../../shared/edit/guards.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { testToolHost } from "../../helpers/tool-host.js";

const ARTICLE = [
  "---",
  "title: Login",
  "owner: auth-team",
  "---",
  "# Login",
  "",
  "See [setup](./setup.md) and [the API](#api).",
  "",
  "## Usage",
  "",
  "Call `login()`.",
  "",
  "## API",
  "",
  "`login(name)` signs in.",
  "",
].join("\n");

const EXISTING = new Set(["docs/setup.md", "docs/login.md", "src/auth.ts", "docs/img"]);
const GUARD: EditGuard = {
  articlePath: "docs/login.md",
  pathExists: (path) => EXISTING.has(path),
  requiredSections: ["Usage"],
  requiredFrontmatter: ["owner"],
};

const replace = (old_string: string, new_string: string) => ({ old_string, new_string, reason: "test" });

describe("after-edit checks in the edit engine", () => {
  it("refuses a new relative link or image to a path missing at head, naming the edit and the line", () => {
    const outcome = applyEdits(
      ARTICLE,
      [replace("`login(name)` signs in.", "See [tokens](../guides/tokens.md).")],
      { guard: GUARD },
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("broken_link");
    expect(outcome.error.message).toMatchInlineSnapshot(
      `"Edit 0: line 15: the new link "../guides/tokens.md" points at guides/tokens.md, which does not exist in the repository; link to an existing file (list_files finds it) or leave the link out"`,
    );
    const image = applyEdits(ARTICLE, [replace("Call `login()`.", "![flow](img/missing.png)")], {
      guard: GUARD,
    });
    expect(image.ok ? "" : image.error.message).toContain(
      'the new image "img/missing.png" points at docs/img/missing.png',
    );
  });

  it("accepts links to existing files and folders, URLs, anchors, links already there, and links in code", () => {
    const edits = [
      replace(
        "Call `login()`.",
        "Call `login()`; see [source](/src/auth.ts), [images](img/), [site](https://example.com/x.md), [usage](#usage), `[x](nowhere.md)`.\n\n```md\n[y](nowhere-either.md)\n```",
      ),
    ];
    expect(applyEdits(ARTICLE, edits, { guard: GUARD }).ok).toBe(true);
    // A link the article already had is not the edit's doing, even when its target is missing.
    const old = ARTICLE.replace("./setup.md", "./gone.md");
    expect(applyEdits(old, [replace("Call `login()`.", "Call `login(name)`.")], { guard: GUARD }).ok).toBe(
      true,
    );
  });

  it("refuses removing a heading an in-article #anchor link points at", () => {
    const outcome = applyEdits(ARTICLE, [replace("## API\n", "## Reference\n")], { guard: GUARD });
    expect(outcome.ok ? "" : outcome.error.message).toMatchInlineSnapshot(
      `"Edit 0: line 7: the link "#api" points at a heading the edit removes or renames; keep the heading, or change the link to a heading that exists"`,
    );
    expect(outcome.ok ? "" : outcome.error.code).toBe("broken_anchor");
  });

  it("refuses removing or renaming a section the template requires, and removing a required key", () => {
    const section = applyEdits(ARTICLE, [replace("## Usage\n\nCall `login()`.\n\n", "")], { guard: GUARD });
    expect(section.ok ? "" : section.error.message).toMatchInlineSnapshot(
      `"Edit 0: the docs template of this article requires the section "Usage" (line 9 before the batch), and the edit removes or renames its heading; keep the heading and change only the text under it"`,
    );
    const renamed = applyEdits(ARTICLE, [replace("## Usage", "## How to use")], { guard: GUARD });
    expect(renamed.ok ? "" : renamed.error.code).toBe("required_section_removed");
    const key = applyEdits(ARTICLE, [replace("owner: auth-team\n", "")], { guard: GUARD });
    expect(key.ok ? "" : key.error.message).toMatchInlineSnapshot(
      `"Edit 0: the docs template of this article requires the frontmatter key "owner" (frontmatter lines 1-4 before the batch), and the edit removes it; keep the key (its value may change)"`,
    );
    const unset = applyEdits(ARTICLE, [{ frontmatter: { owner: null }, reason: "test" }], { guard: GUARD });
    expect(unset.ok ? "" : unset.error.code).toBe("required_frontmatter_removed");
    // Changing a required key's value or the text under a required section is fine.
    const fine = applyEdits(
      ARTICLE,
      [
        replace("owner: auth-team", "owner: identity-team"),
        replace("Call `login()`.", "Call `login(name)`."),
      ],
      { guard: GUARD },
    );
    expect(fine.ok).toBe(true);
  });

  it("names the edit of the batch after which the problem shows", () => {
    const outcome = applyEdits(
      ARTICLE,
      [replace("Call `login()`.", "Call `login(name)`."), replace("## Usage", "## Use")],
      { guard: GUARD },
    );
    expect(outcome.ok ? "" : outcome.error.message).toMatch(/^Edit 1: /);
  });

  it("checks nothing of this without a guard", () => {
    expect(applyEdits(ARTICLE, [replace("## Usage", "## Use")]).ok).toBe(true);
  });
});

describe("edit_article with a docs template and evidence at head", () => {
  function setup() {
    const repo = gitRepo({
      "docs/login.md": ARTICLE,
      "docs/setup.md": "# Setup\n",
      "src/auth.ts": "export function login(name: string) {\n  return name;\n}\n",
    });
    const host = testToolHost(repo.dir, {
      articlePath: "docs/login.md",
      changedFiles: ["src/auth.ts"],
      templates: [
        { docs: "docs/**/*.md", requiredSections: ["Usage", "API"], requiredFrontmatter: ["owner"] },
        { docs: "guides/**", requiredSections: ["Never"], requiredFrontmatter: [] },
      ],
    });
    let id = 0;
    const edit = async (args: unknown) =>
      (
        await host.execute(
          [
            {
              id: `call_${++id}`,
              type: "function",
              function: { name: "edit_article", arguments: JSON.stringify(args) },
            },
          ],
          new AbortController().signal,
        )
      )[0]!;
    return { host, edit };
  }

  it("refuses a batch that guts a template-guarded article, and the draft stays as it was", async () => {
    const { host, edit } = setup();
    const gutted = await edit({
      path: "docs/login.md",
      edits: [
        {
          section: "Login",
          mode: "replace",
          content: "Everything changed; see the code.\n",
          reason: "rewrite",
        },
      ],
    });
    expect(gutted.ok).toBe(false);
    expect(gutted.content).toContain('requires the section "Usage"');
    expect(host.edits).toEqual([]);
    const fine = await edit({
      path: "docs/login.md",
      edits: [
        { section: "Usage", mode: "replace", content: "Call `login(name)`.\n", reason: "new parameter" },
      ],
    });
    expect(fine.ok).toBe(true);
  });

  it("reports evidence that does not exist at head and leaves it out of the audit", async () => {
    const { host, edit } = setup();
    const result = await edit({
      path: "docs/login.md",
      edits: [
        {
          ...replace("Call `login()`.", "Call `login(name)`."),
          evidence: ["src/auth.ts:1", "src/auth.ts:99", "src/gone.ts:3"],
        },
      ],
    });
    expect(result.ok).toBe(true);
    expect(result.content).toContain('evidence "src/auth.ts:99" names line 99, but src/auth.ts has 3 lines');
    expect(result.content).toContain('evidence "src/gone.ts:3" names "src/gone.ts", which does not exist');
    expect(host.edits.map((recorded) => recorded.evidence)).toEqual([["src/auth.ts:1"]]);
  });
});

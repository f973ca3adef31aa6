import { describe, expect, it } from "vitest";
import type { AgentToolHostOptions } from "../../../cli/run/agent-tool-host.js";
import { SandboxPolicy } from "../../../cli/run/sandbox.js";
import { Workspace } from "../../../cli/run/workspace.js";
import { contentHash } from "../../../shared/hash.js";
import type { ToolCall } from "../../../shared/model/types.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { testToolHost } from "../../helpers/tool-host.js";

const ARTICLE = "docs/guide.md";
const GUIDE = "# Guide\n\n## Usage\n\nRun `impact run --old-flag`.\n\n## Checklist\n\n- [ ] tests pass\n";

function setup(files: Record<string, string | Uint8Array> = {}, options: Partial<AgentToolHostOptions> = {}) {
  const repo = gitRepo({
    [ARTICLE]: GUIDE,
    "docs/other.md": "# Other\n",
    "src/cli.ts": 'export const flag = "--new-flag";\n',
    ".gitignore": "build/\n",
    ...files,
  });
  const workspace = new Workspace(repo.dir);
  const host = testToolHost(repo.dir, {
    workspace,
    articlePath: ARTICLE,
    changedFiles: ["src/cli.ts"],
    ...options,
  });
  let id = 0;
  const run = async (...calls: [string, unknown][]) =>
    host.execute(
      calls.map(
        ([name, args]): ToolCall => ({
          id: `call_${++id}`,
          type: "function",
          function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
        }),
      ),
      new AbortController().signal,
    );
  const one = async (name: string, args: unknown) => (await run([name, args]))[0]!;
  return { repo, workspace, host, run, one };
}

describe("read_file", () => {
  it("returns raw text under a one-line header with the hash", async () => {
    const { one } = setup();
    const result = await one("read_file", { path: ARTICLE });
    expect(result.ok).toBe(true);
    expect(result.content).toBe(`docs/guide.md · lines 1-9 of 9 · hash ${contentHash(GUIDE)}\n${GUIDE}`);
  });

  it("pages a long file and says where the next page starts", async () => {
    const long = Array.from({ length: 30 }, (_, index) => `line ${index + 1}\r\n`).join("");
    const { one } = setup({ "docs/long.md": long }, { limits: { readPageLines: 10 } });
    const first = await one("read_file", { path: "docs/long.md" });
    expect(first.content.split("\n")[0]).toMatchInlineSnapshot(
      `"docs/long.md · lines 1-10 of 30 · hash bc91309fc467a2c4 · more: call read_file with offset=11"`,
    );
    expect(first.content).toContain("line 10\r\n");
    expect(first.content).not.toContain("line 11");
    const middle = await one("read_file", { path: "docs/long.md", offset: 25, limit: 3 });
    expect(middle.content).toBe(
      `docs/long.md · lines 25-27 of 30 · hash ${contentHash(long)} · more: call read_file with offset=28\nline 25\r\nline 26\r\nline 27\r\n`,
    );
    const past = await one("read_file", { path: "docs/long.md", offset: 31 });
    expect(past.content).toMatchInlineSnapshot(
      `"Error: offset 31 is past the end of docs/long.md, which has 30 lines. Use an offset from 1 to 30."`,
    );
  });

  it("stops a page at the byte cap on a line boundary", async () => {
    const wide = Array.from(
      { length: 100 },
      (_, index) => `${String(index + 1).padStart(3, "0")} ${"x".repeat(95)}\n`,
    ).join("");
    const { one } = setup({ "docs/wide.md": wide }, { limits: { toolResultBytes: 1000 } });
    const result = await one("read_file", { path: "docs/wide.md" });
    const [header, ...lines] = result.content.split("\n");
    expect(header).toMatchInlineSnapshot(
      `"docs/wide.md · lines 1-7 of 100 · hash 0412377e9be5a780 · more: call read_file with offset=8"`,
    );
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).every((line) => line.length === 99)).toBe(true);
  });

  it("refuses binary files, directories and missing files with a next step", async () => {
    const { run } = setup({ "assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) });
    const results = await run(
      ["read_file", { path: "assets/logo.png" }],
      ["read_file", { path: "docs" }],
      ["read_file", { path: "docs/gone.md" }],
    );
    expect(results.map((result) => [result.ok, result.content])).toMatchInlineSnapshot(`
      [
        [
          false,
          "Error: "assets/logo.png" is a binary file (7 bytes); only text files can be read.",
        ],
        [
          false,
          "Error: "docs" is a directory or special file, not a file. Use list_files with "docs/*" to see what it holds.",
        ],
        [
          false,
          "Error: "docs/gone.md" does not exist. Use list_files with a glob (such as "docs/**") to find the right path.",
        ],
      ]
    `);
  });
});

describe("search_repo and list_files", () => {
  it("finds literal text, skips .gitignored files, and says when it capped", async () => {
    const { run } = setup(
      {
        "build/out.js": "--old-flag\n",
        "src/a.ts": "a --old-flag\nb --old-flag\nc --old-flag\n",
      },
      { limits: { searchMatches: 2 } },
    );
    const results = await run(
      ["search_repo", { pattern: "--old-flag" }],
      ["search_repo", { pattern: "--old-flag", glob: "docs/**" }],
      ["search_repo", { pattern: "nowhere to be found" }],
    );
    expect(results.map((result) => result.content)).toMatchInlineSnapshot(`
      [
        "docs/guide.md:5: Run \`impact run --old-flag\`.
      src/a.ts:1: a --old-flag

      [capped at 2 matches; there are more. Narrow the pattern or pass a glob to see the rest]
      ",
        "docs/guide.md:5: Run \`impact run --old-flag\`.
      ",
        "No matches for text "nowhere to be found" (5 files searched). The search is literal and case-sensitive; pass regex: true for a pattern.
      ",
      ]
    `);
  });

  it("searches with a regex, refuses a bad one, and stops a runaway one", async () => {
    // The ordinary searches run with the default budget, so a GC pause cannot time them out;
    // only the runaway one gets a tight budget.
    const { run } = setup();
    const results = await run(
      ["search_repo", { pattern: "flag\\s*=", regex: true }],
      ["search_repo", { pattern: "([a-z]", regex: true }],
    );
    const slow = setup({ "src/slow.txt": `${"a".repeat(40)}!\n` }, { limits: { regexTimeoutMs: 50 } });
    results.push(
      ...(await slow.run(["search_repo", { pattern: "(a|aa)*b", regex: true, glob: "src/slow.txt" }])),
    );
    expect(results.map((result) => [result.ok, result.content])).toMatchInlineSnapshot(`
      [
        [
          true,
          "src/cli.ts:1: export const flag = "--new-flag";
      ",
        ],
        [
          false,
          "Error: The regex does not compile: Invalid regular expression: /([a-z]/: Unterminated group. Fix it, or search for literal text (regex: false).",
        ],
        [
          false,
          "Error: The regex search took longer than 50 ms and was stopped. Use a simpler pattern, a glob to search fewer files, or literal text.",
        ],
      ]
    `);
  });

  it("sees this article's draft", async () => {
    const { run } = setup();
    await run([
      "edit_article",
      { path: ARTICLE, edits: [{ old_string: "--old-flag", new_string: "--new-flag", reason: "renamed" }] },
    ]);
    const [result] = await run(["search_repo", { pattern: "--new-flag", glob: "docs/**" }]);
    expect(result?.content).toBe("docs/guide.md:5: Run `impact run --new-flag`.\n");
  });

  it("filters the repository's files once per run, and merges in the overlay and the draft in path order", async () => {
    const { repo, workspace, host, one } = setup({}, { allowCreate: true });
    await one("create_article", { path: "docs/a-new.md", content: "# A\n", reason: "r" });
    host.finish();
    class CountingPolicy extends SandboxPolicy {
      readonly checked: string[] = [];
      override deniedReason(path: string) {
        this.checked.push(path);
        return super.deniedReason(path);
      }
    }
    const sandbox = new CountingPolicy({ root: repo.dir });
    const other = testToolHost(repo.dir, {
      workspace,
      articlePath: "docs/other.md",
      allowCreate: true,
      sandbox,
    });
    const call = async (name: string, args: unknown) =>
      (
        await other.execute(
          [{ id: `other_${name}`, type: "function", function: { name, arguments: JSON.stringify(args) } }],
          new AbortController().signal,
        )
      )[0]!;
    await call("create_article", { path: "docs/z-new.md", content: "# Z\n", reason: "r" });
    sandbox.checked.length = 0;
    const listed = await call("list_files", { glob: "docs/**" });
    expect(listed.content).toBe("docs/a-new.md\ndocs/guide.md\ndocs/other.md\ndocs/z-new.md\n");
    expect(sandbox.checked).toContain("src/cli.ts");
    sandbox.checked.length = 0;
    await call("search_repo", { pattern: "x", glob: "nothing/**" });
    // Only the overlay's and the draft's paths are checked again.
    expect(sandbox.checked).toEqual(["docs/a-new.md", "docs/z-new.md"]);
  });

  it("lists files by glob, capped, without ignored files", async () => {
    const { run } = setup(
      { "build/x.md": "x\n", "docs/a/b.md": "b\n", "docs/a/c.md": "c\n" },
      { limits: { listFiles: 2 } },
    );
    const results = await run(
      ["list_files", { glob: "docs/a/*" }],
      ["list_files", { glob: "**/*.md" }],
      ["list_files", { glob: "docs" }],
    );
    expect(results.map((result) => result.content)).toMatchInlineSnapshot(`
      [
        "docs/a/b.md
      docs/a/c.md
      ",
        "docs/a/b.md
      docs/a/c.md

      [capped: 2 of 4 files shown; use a narrower glob to see the rest]
      ",
        "No files match "docs". To list a folder, end the glob with "/**" ("docs/**").
      ",
      ]
    `);
  });
});

describe("edit_article", () => {
  it("applies edits, records them for the audit and notes evidence outside the change", async () => {
    const { host, one, workspace } = setup({ "src/unrelated.ts": "// unrelated\n".repeat(10) });
    const result = await one("edit_article", {
      path: ARTICLE,
      expected_hash: contentHash(GUIDE),
      done: true,
      edits: [
        {
          old_string: "--old-flag",
          new_string: "--new-flag",
          reason: "The flag was renamed.",
          evidence: ["src/cli.ts:1", "src/unrelated.ts:9"],
        },
        { checklist_item: "tests pass", checked: true, reason: "Tests pass now." },
      ],
    });
    expect(result.ok).toBe(true);
    expect(result.content).toMatchInlineSnapshot(`
      "Edited docs/guide.md: 2 edits applied.

      Edit 0 (replace): now line 5
       2 | 
       3 | ## Usage
       4 | 
      >5 | Run \`impact run --new-flag\`.
       6 | 
       7 | ## Checklist
       8 | 

      Edit 1 (checklist): now line 9
        6 | 
        7 | ## Checklist
        8 | 
      > 9 | - [x] tests pass

      New hash: 54be2c134a043e34 (was 40c93514af013611); pass it as expected_hash with your next edit_article call.
      Note: the edits were applied, but some evidence is outside the change:
      - Edit 0: evidence "src/unrelated.ts:9" names a file that is not part of this change.
      Evidence should name changed files (src/cli.ts), as "path:line".
      Marked done: the article is finished."
    `);
    expect(host.done).toBe(true);
    expect(host.edits).toEqual([
      {
        kind: "replace",
        reason: "The flag was renamed.",
        evidence: ["src/cli.ts:1", "src/unrelated.ts:9"],
        startLine: 5,
        endLine: 5,
        toolCallId: "call_1",
        path: ARTICLE,
        // The edit as given, which `impact apply --only` replays.
        request: {
          old_string: "--old-flag",
          new_string: "--new-flag",
          reason: "The flag was renamed.",
          evidence: ["src/cli.ts:1", "src/unrelated.ts:9"],
        },
      },
      {
        kind: "checklist",
        reason: "Tests pass now.",
        evidence: [],
        startLine: 9,
        endLine: 9,
        toolCallId: "call_1",
        path: ARTICLE,
        request: { checklist_item: "tests pass", checked: true, reason: "Tests pass now." },
      },
    ]);
    expect(await workspace.read(ARTICLE)).toBe(GUIDE);
    host.finish();
    expect(await workspace.read(ARTICLE)).toBe(
      GUIDE.replace("--old-flag", "--new-flag").replace("- [ ]", "- [x]"),
    );
  });

  it("fails as a whole, names the failing edit, and records only the edits that landed", async () => {
    const { host, run } = setup();
    const bad = {
      path: ARTICLE,
      edits: [
        { old_string: "--old-flag", new_string: "--new-flag", reason: "r" },
        { old_string: "not in the article", new_string: "x", reason: "r" },
      ],
    };
    const [first, second] = await run(["edit_article", bad], ["edit_article", bad]);
    expect(first?.ok).toBe(false);
    expect(first?.content).toMatch(/^Error: Edit 1: /);
    expect(second?.content).toContain("This exact call has now failed 2 times");
    const [third] = await run(["edit_article", { path: ARTICLE, edits: [bad.edits[0]] }]);
    const [fourth] = await run([
      "edit_article",
      { path: ARTICLE, edits: [{ old_string: "## Usage", new_string: "## Use", reason: "r" }] },
    ]);
    expect([second?.ok, third?.ok, fourth?.ok]).toEqual([false, true, true]);
    expect(host.edits.map((edit) => edit.toolCallId)).toEqual(["call_3", "call_4"]);
    expect(host.done).toBe(false);
  });

  it("refuses a stale expected_hash and leaves the draft untouched", async () => {
    const { host, one, workspace } = setup();
    const result = await one("edit_article", {
      path: ARTICLE,
      expected_hash: "0000000000000000",
      edits: [{ old_string: "--old-flag", new_string: "--new-flag", reason: "r" }],
    });
    expect(result.ok).toBe(false);
    expect(result.content).toContain(contentHash(GUIDE));
    host.finish();
    expect(workspace.changes()).toEqual([]);
  });
});

describe("create_article", () => {
  it("creates a new article under the docs globs, recorded as an edit", async () => {
    const { host, one, workspace } = setup({}, { allowCreate: true });
    const result = await one("create_article", {
      path: "docs/flags.md",
      content: "# Flags\n\n--new-flag\n",
      reason: "New flag needs a page.",
    });
    expect(result.content).toMatchInlineSnapshot(
      `"Created "docs/flags.md" (3 lines, hash baba252d41d99d8f). It is part of the result when this article finishes."`,
    );
    expect(host.edits).toEqual([
      {
        kind: "create",
        reason: "New flag needs a page.",
        evidence: [],
        startLine: 1,
        endLine: 3,
        toolCallId: "call_1",
        path: "docs/flags.md",
      },
    ]);
    host.finish();
    expect(workspace.changes().map((change) => [change.path, change.before, change.after])).toEqual([
      ["docs/flags.md", null, "# Flags\n\n--new-flag\n"],
    ]);
  });

  it("is an unknown tool without --allow-create, and an ignored docs path is refused", async () => {
    const plain = setup();
    expect(
      (await plain.one("create_article", { path: "docs/x.md", content: "x", reason: "r" })).content,
    ).toMatchInlineSnapshot(
      `"Error: There is no tool named "create_article". create_article is not enabled in this run (it needs --allow-create). Available tools: read_file, outline_article, search_repo, list_files, edit_article."`,
    );
    const withIgnore = setup({}, { allowCreate: true, ignoreGlobs: ["docs/internal/**"] });
    const refused = await withIgnore.one("create_article", {
      path: "docs/internal/x.md",
      content: "x",
      reason: "r",
    });
    expect(refused.ok).toBe(false);
    expect(refused.content).toContain("not under the docs globs");
  });
});

describe("AgentToolHost.execute", () => {
  it("answers bad JSON, schema failures with the field path, and unknown tools", async () => {
    const { run } = setup();
    const results = await run(
      ["read_file", '{"path": "docs/guide.md"'],
      ["edit_article", { path: ARTICLE, edits: [{ old_string: "a", new_string: "b" }] }],
      ["read_file", { path: ARTICLE, offset: 0, extra: true }],
      ["delete_file", { path: ARTICLE }],
    );
    expect(results.map((result) => result.content)).toMatchInlineSnapshot(`
      [
        "Error: The arguments of read_file are not valid JSON (Expected ',' or '}' after property value in JSON at position 24). Send one JSON object matching the tool's schema.",
        "Error: Invalid arguments for edit_article:
      - edits[0].reason: expected string, received undefined",
        "Error: Invalid arguments for read_file:
      - offset: Too small: expected number to be >0
      - (arguments): unknown key "extra"",
        "Error: There is no tool named "delete_file". Available tools: read_file, outline_article, search_repo, list_files, edit_article.",
      ]
    `);
    // The runner counts a result with ok: false as a tool error.
    expect(results.map((result) => result.ok)).toEqual([false, false, false, false]);
  });

  it("keeps the call order, lets later calls see earlier edits, and refuses calls past the cap", async () => {
    const { run } = setup({}, { limits: { toolCallsPerTurn: 3 } });
    const results = await run(
      ["read_file", { path: ARTICLE, offset: 5, limit: 1 }],
      [
        "edit_article",
        { path: ARTICLE, edits: [{ old_string: "--old-flag", new_string: "--new-flag", reason: "r" }] },
      ],
      ["read_file", { path: ARTICLE, offset: 5, limit: 1 }],
      ["read_file", { path: ARTICLE }],
    );
    expect(results.map((result) => [result.toolCallId, result.name, result.ok])).toEqual([
      ["call_1", "read_file", true],
      ["call_2", "edit_article", true],
      ["call_3", "read_file", true],
      ["call_4", "read_file", false],
    ]);
    expect(results[0]?.content).toContain("--old-flag");
    expect(results[2]?.content).toContain("--new-flag");
    expect(results[3]?.content).toMatchInlineSnapshot(
      `"Error: Too many tool calls in one turn: only the first 3 were run. Make this call again in the next turn if you still need it."`,
    );
  });

  it("cuts an oversized result and says so", async () => {
    const { one } = setup({ "docs/big.md": `${"y".repeat(5000)}\n` }, { limits: { toolResultBytes: 400 } });
    const result = await one("read_file", { path: "docs/big.md" });
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(400);
    expect(result.content.split("\n").at(-1)).toMatchInlineSnapshot(
      `"[result cut at 400 bytes; ask for less (read_file offset/limit, a narrower glob or pattern)]"`,
    );
  });

  it("throws when the signal is aborted", async () => {
    const { host } = setup();
    const controller = new AbortController();
    controller.abort();
    await expect(
      host.execute(
        [{ id: "c", type: "function", function: { name: "read_file", arguments: "{}" } }],
        controller.signal,
      ),
    ).rejects.toThrow();
  });

  it("abandon() leaves no trace of the article's edits", async () => {
    const { host, one, workspace } = setup();
    await one("edit_article", {
      path: ARTICLE,
      edits: [{ old_string: "--old-flag", new_string: "--x", reason: "r" }],
    });
    host.abandon();
    expect(workspace.changes()).toEqual([]);
    expect(await workspace.read(ARTICLE)).toBe(GUIDE);
  });
});

describe("outline_article", () => {
  it("shows the heading tree of the draft, with the hash", async () => {
    const { run } = setup();
    await run([
      "edit_article",
      { path: ARTICLE, edits: [{ old_string: "## Usage", new_string: "## Use", reason: "r" }] },
    ]);
    const [result] = await run(["outline_article", { path: ARTICLE }]);
    expect(result?.ok).toBe(true);
    expect(result?.content).toContain("Guide::Use");
    expect(result?.content).not.toContain("Usage");
    expect(result?.content).toContain(contentHash(GUIDE.replace("## Usage", "## Use")));
  });
});

describe("several article loops on one workspace", () => {
  it("run concurrently; each article's edits land together or not at all", async () => {
    const { repo, workspace, host, run } = setup();
    const second = testToolHost(repo.dir, {
      workspace,
      articlePath: "docs/other.md",
    });
    const signal = new AbortController().signal;
    const editOther = (id: string, from: string, to: string) =>
      second.execute(
        [
          {
            id,
            type: "function",
            function: {
              name: "edit_article",
              arguments: JSON.stringify({
                path: "docs/other.md",
                edits: [{ old_string: from, new_string: to, reason: "r" }],
              }),
            },
          },
        ],
        signal,
      );
    const [mine, theirs] = await Promise.all([
      run([
        "edit_article",
        { path: ARTICLE, edits: [{ old_string: "--old-flag", new_string: "--new-flag", reason: "r" }] },
      ]),
      editOther("o1", "# Other", "# Other article"),
    ]);
    expect([mine[0]?.ok, theirs[0]?.ok]).toEqual([true, true]);
    // The other loop fails later: none of its edits may remain.
    second.abandon();
    host.finish();
    expect(workspace.changes().map((change) => change.path)).toEqual([ARTICLE]);
    expect(await workspace.read("docs/other.md")).toBe("# Other\n");
  });
});

import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { contentHash } from "../../shared/hash.js";
import { gitRepo } from "../helpers/git-repo.js";
import { impactEdit } from "../helpers/impact-edit.js";

/** A spec in the shape the spec tools edit: frontmatter, tasks, notes. */
const SPEC = `---
status: planned
priority: high # set at triage
created: '2024-01-05'
---
# 001: Login

## Tasks

- [ ] Task: write the handler
- [ ] Task: document it

## Notes

First note.

## Design

Use tokens. Tokens expire. Refresh tokens.
`;

/** `impact edit` as a user starts it: the built CLI in a process of its own. */
function builtImpact(cwd: string, args: string[], input?: string) {
  const result = spawnSync(
    process.execPath,
    [join(inject("builtPackage"), "cli", "bin.js"), "edit", ...args],
    {
      cwd,
      input: input ?? "",
      encoding: "utf8",
    },
  );
  return { code: result.status, out: result.stdout, err: result.stderr };
}

function specRepo(content = SPEC) {
  const repo = gitRepo({ "specs/001-login/README.md": content, "notes.txt": "new\ntext\n" });
  const file = join(repo.dir, "specs/001-login/README.md");
  return { repo, read: () => readFileSync(file, "utf8") };
}

describe("impact edit", () => {
  it("applies the spec tool's update in one batch through the built CLI: replace all, check, append to a section, set frontmatter", () => {
    const { repo, read } = specRepo();
    const result = builtImpact(repo.dir, [
      "specs/001-login/README.md",
      "--replace",
      "Tokens",
      "Sessions",
      "--match-all",
      "--check",
      "Task: write",
      "--section",
      "Notes",
      "--append",
      "Second note.",
      "--set",
      "status=in-progress",
      "--unset",
      "priority",
      "--set",
      "tags=[auth, api]",
    ]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(read()).toBe(`---
status: in-progress
created: '2024-01-05'
tags:
  - auth
  - api
---
# 001: Login

## Tasks

- [x] Task: write the handler
- [ ] Task: document it

## Notes

First note.

Second note.

## Design

Use tokens. Sessions expire. Refresh tokens.
`);
    expect(result.out).toContain("diff --git a/specs/001-login/README.md b/specs/001-login/README.md");
    expect(result.out).toContain("-- [ ] Task: write the handler\n+- [x] Task: write the handler");
  });

  it("applies --occurrence and --within to the --replace before them, and replaces a section's body", async () => {
    const { repo, read } = specRepo();
    const result = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--replace",
      "okens",
      "OKENS",
      "--occurrence",
      "2",
      "--within",
      "Design",
      "--uncheck",
      "nothing-checked-yet",
    ]);
    expect(result.code).toBe(1);
    // In people's words, with real line breaks: edits counted from 1, as typed.
    expect(result.err).toBe(
      'impact edit: specs/001-login/README.md: Edit 2: no checklist item contains "nothing-checked-yet". The checklist items are:\n  line 10: [ ] Task: write the handler\n  line 11: [ ] Task: document it\n(Line numbers are those of the article after edit 1 of this command.)\nNothing was written.\n',
    );
    expect(read()).toBe(SPEC);
    const second = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--replace",
      "okens",
      "OKENS",
      "--occurrence",
      "last",
      "--within",
      "Design",
      "--section",
      "Tasks",
      "--replace",
      "- [ ] Task: all of it\n",
    ]);
    expect(second.code).toBe(0);
    expect(read()).toContain("## Tasks\n\n- [ ] Task: all of it\n\n## Notes");
    expect(read()).toContain("Use tokens. Tokens expire. Refresh tOKENS.");
  });

  it("rejects with the engine's diagnostics and writes nothing: near miss, every match's line, section candidates, stale hash", async () => {
    const { repo, read } = specRepo();
    const nearMiss = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--replace",
      "first  note.",
      "x",
    ]);
    expect(nearMiss.code).toBe(1);
    expect(nearMiss.err).toContain("Closest near-miss at line 15");
    const many = await impactEdit(repo.dir, ["specs/001-login/README.md", "--replace", "Task:", "Step:"]);
    expect(many.code).toBe(1);
    expect(many.err).toBe(
      "impact edit: specs/001-login/README.md: Edit 1: OLD matches 2 times (lines 10, 11); it must match exactly once. Add the heading or a neighbouring line to OLD so it is unique, add --within SECTION, or --occurrence all|first|last|N (--match-all for all).\nNothing was written.\n",
    );
    // No dump of the article's start unless --verbose; --json gives a result object on a refusal too.
    const missing = await impactEdit(repo.dir, ["specs/001-login/README.md", "--replace", "zzz", "x"]);
    expect(missing.err).toBe(
      "impact edit: specs/001-login/README.md: Edit 1: OLD not found.\nNo near-miss either: nothing in the article resembles it. Check the text in the file (--verbose shows its start).\nNothing was written.\n",
    );
    const verbose = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--replace",
      "zzz",
      "x",
      "--verbose",
    ]);
    expect(verbose.err).toContain(
      "The article starts with (first 500 characters):\n----- article start -----",
    );
    const json = await impactEdit(repo.dir, ["specs/001-login/README.md", "--replace", "zzz", "x", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({
      ok: false,
      path: "specs/001-login/README.md",
      hashBefore: contentHash(SPEC),
      error: { code: "not_found", index: 0 },
    });
    const section = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--section",
      "Nope",
      "--append",
      "x",
    ]);
    expect(section.code).toBe(1);
    expect(section.err).toContain('section "Nope" not found. Available sections');
    const stale = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--expected-hash",
      "0123456789abcdef",
      "--check",
      "write",
    ]);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain(`current hash ${contentHash(SPEC)}`);
    expect(read()).toBe(SPEC);
  });

  it("takes TEXT from standard input and @FILE, and edits from --edits FILE or -", async () => {
    const { repo, read } = specRepo();
    writeFileSync(
      join(repo.dir, "edits.json"),
      JSON.stringify([{ frontmatter: { status: "done" }, reason: "shipped" }]),
    );
    const result = await impactEdit(
      repo.dir,
      [
        "specs/001-login/README.md",
        "--replace",
        "First note.",
        "-",
        "--section",
        "Design",
        "--prepend",
        "@notes.txt",
        "--edits",
        "edits.json",
      ],
      "Changed note.",
    );
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(read()).toContain("status: done\n");
    expect(read()).toContain("## Notes\n\nChanged note.\n");
    // Prepended as a paragraph of its own: a blank line before the body it lands against.
    expect(read()).toContain("## Design\n\nnew\ntext\n\nUse tokens.");
    const fromStdin = await impactEdit(
      repo.dir,
      ["specs/001-login/README.md", "--edits", "-"],
      JSON.stringify([{ checklist_item: "document", checked: true, reason: "done" }]),
    );
    expect(fromStdin.code).toBe(0);
    expect(read()).toContain("- [x] Task: document it");
  });

  it("--dry-run prints the diff and writes nothing; --json gives path, hashes, edits and patch", async () => {
    const { repo, read } = specRepo();
    const dry = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--dry-run",
      "--json",
      "--reason",
      "Renamed.",
      "--check",
      "write",
    ]);
    expect(dry.code).toBe(0);
    const report = JSON.parse(dry.out);
    expect(report).toMatchObject({
      path: "specs/001-login/README.md",
      hashBefore: contentHash(SPEC),
      hashAfter: contentHash(SPEC.replace("- [ ] Task: write", "- [x] Task: write")),
      edits: [{ checklist_item: "write", checked: true, reason: "Renamed." }],
      applied: [{ index: 0, kind: "checklist", reason: "Renamed.", startLine: 10, endLine: 10 }],
    });
    expect(report.patch).toContain("+- [x] Task: write the handler");
    expect(read()).toBe(SPEC);
    // Its edits go back into --edits as they are.
    repo.write({ "edits.json": JSON.stringify(report.edits) });
    const again = await impactEdit(repo.dir, ["specs/001-login/README.md", "--edits", "edits.json"]);
    expect(again.code).toBe(0);
    expect(read()).toBe(SPEC.replace("- [ ] Task: write", "- [x] Task: write"));
  });

  it("reads a relative path from --repo DIR when given, as git -C DIR does", async () => {
    const { repo, read } = specRepo();
    const result = await impactEdit(dirname(repo.dir), [
      "specs/001-login/README.md",
      "--repo",
      basename(repo.dir),
      "--check",
      "write",
    ]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(read()).toBe(SPEC.replace("- [ ] Task: write", "- [x] Task: write"));
  });

  it("sets appended text apart with a blank line, except where it continues a list", async () => {
    const { repo, read } = specRepo();
    const result = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--section",
      "Tasks",
      "--append",
      "- [ ] Task: review it",
      "--section",
      "Notes",
      "--append",
      "| a | b |\n|---|---|",
    ]);
    expect(result.code).toBe(0);
    expect(read()).toContain(
      "- [ ] Task: document it\n- [ ] Task: review it\n\n## Notes\n\nFirst note.\n\n| a | b |",
    );
  });

  it("keeps CRLF line endings and a BOM", async () => {
    const crlf = `\uFEFF${SPEC.replace(/\n/g, "\r\n")}`;
    const { repo, read } = specRepo(crlf);
    const result = await impactEdit(repo.dir, [
      "specs/001-login/README.md",
      "--section",
      "Notes",
      "--append",
      "Second note.",
      "--set",
      "status=done",
    ]);
    expect(result.code).toBe(0);
    expect(read()).toBe(
      crlf
        .replace("First note.\r\n", "First note.\r\n\r\nSecond note.\r\n")
        .replace("status: planned", "status: done"),
    );
  });

  it("answers usage mistakes with exit 2 and one line, and refuses .git/ and denied files", async () => {
    const { repo, read } = specRepo();
    const cases: [string[], string][] = [
      [["specs/001-login/README.md"], "needs at least one edit"],
      [["--check", "x"], "takes the path of the file to edit"],
      [["specs/001-login/README.md", "--match-all"], "applies to the --replace OLD NEW right before it"],
      [
        ["specs/001-login/README.md", "--section", "Notes", "--check", "x"],
        "must be followed by --append, --prepend or --replace",
      ],
      [["specs/001-login/README.md", "--replace", "a"], "needs a value"],
      [
        ["specs/001-login/README.md", "--replace", "a", "b", "--occurrence", "0"],
        "--occurrence takes unique, all, first, last",
      ],
      [["specs/001-login/README.md", "--set", "novalue"], "--set takes KEY=VALUE"],
      [["specs/001-login/README.md", "--edits", "missing.json"], "cannot read @missing.json"],
      [["specs/001-login/README.md", "--bogus"], "unknown option --bogus"],
      [["docs/none.md", "--check", "x"], '"docs/none.md" does not exist'],
      [[".git/config", "--replace", "a", "b"], ".git"],
    ];
    // In process: the same command code the built CLI runs, without a process start per case.
    for (const [args, message] of cases) {
      const result = await impactEdit(repo.dir, args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.err, args.join(" ")).toContain(message);
      expect(result.err.trim().split("\n"), args.join(" ")).toHaveLength(1);
    }
    writeFileSync(join(repo.dir, ".env"), "KEY=1\n");
    const denied = await impactEdit(repo.dir, [".env", "--replace", "KEY=1", "KEY=2"]);
    expect(denied.code).toBe(2);
    expect(readFileSync(join(repo.dir, ".env"), "utf8")).toBe("KEY=1\n");
    expect(read()).toBe(SPEC);
  });
});

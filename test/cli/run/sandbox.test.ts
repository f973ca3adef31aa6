import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { SandboxPolicy } from "../../../cli/run/sandbox.js";
import { Workspace } from "../../../cli/run/workspace.js";
import type { ToolCall } from "../../../shared/model/types.js";
import { gitRepo, makeTempDir } from "../../helpers/git-repo.js";
import { testToolHost } from "../../helpers/tool-host.js";

const MARKER = "SECRET-MARKER";
const ARTICLE = "docs/guide.md";

/** A repository full of things the model must not reach, and a directory outside it. */
function hostileRepo() {
  const outside = makeTempDir("impact-outside-");
  writeFileSync(join(outside, "outside.txt"), `${MARKER} outside\n`);
  const secret = `${MARKER} top-secret\n`;
  const repo = gitRepo({
    [ARTICLE]: "# Guide\n\nRun `impact run`.\n",
    "docs/other.md": "# Other\n",
    "src/a.ts": "export const a = 1;\n",
    "README.md": "# Readme\n",
    ".env": secret,
    ".env.local": secret,
    ".env.d/x": secret,
    "config/server.pem": secret,
    "keys/id_rsa": secret,
    "keys/id_ed25519.pub": secret,
    ".npmrc": secret,
    ".netrc": secret,
    "certs/client.p12": secret,
    "certs/client.pfx": secret,
    "tls/private.key": secret,
    "secrets/prod.yaml": secret,
    "notes/plan.secret": secret,
  });
  const link = (target: string, path: string) => symlinkSync(target, join(repo.dir, path));
  link(join(outside, "outside.txt"), "docs/escape.md");
  link("../../../../../../../../etc/hostname", "docs/relative-escape.md");
  link(outside, "docs/linkdir");
  link("../src", "docs/code");
  link("../.git/config", "docs/git-config.md");
  link("../.env", "docs/env.md");
  link("loop.md", "docs/loop.md");
  link("/nonexistent/file.md", "docs/dangling.md");
  return { repo, outside };
}

/** Every file under the directories, with a digest of its bytes (or its link target). */
function fingerprint(...dirs: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (base: string, dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const info = lstatSync(full);
      const key = `${base}:${relative(base, full)}`;
      if (info.isSymbolicLink()) result[key] = `-> ${readlinkSync(full)}`;
      else if (info.isDirectory()) walk(base, full);
      else result[key] = `${info.mode} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
    }
  };
  for (const dir of dirs) walk(dir, dir);
  return result;
}

let callNumber = 0;
function call(name: string, args: unknown): ToolCall {
  callNumber += 1;
  return {
    id: `call_${callNumber}`,
    type: "function",
    function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
  };
}

const read = (path: string) => ["read_file", { path }] as const;
const refusedReads = [
  "/etc/passwd",
  "~/.ssh/id_rsa",
  "~",
  "~root/.bashrc",
  "../outside/outside.txt",
  "../../../../../../etc/passwd",
  "docs/../../etc/passwd",
  "docs/../README.md",
  "./../x",
  "....//....//etc/passwd",
  "docs/..",
  "..",
  " ../etc/passwd",
  "%2e%2e/%2e%2e/etc/passwd",
  "..%2fetc%2fpasswd",
  "docs\\..\\..\\etc\\passwd",
  "..\\outside",
  "C:\\Windows\\win.ini",
  "C:/Windows/win.ini",
  "//server/share/file",
  "docs/guide.md\u0000.txt",
  "\u0000",
  ".git/config",
  ".git/HEAD",
  "./.git/config",
  ".GIT/config",
  "docs/../.git/config",
  ".git",
  ".git./config",
  "src/.git/config",
  ".env",
  ".env.local",
  ".env.d/x",
  ".ENV",
  "config/server.pem",
  "keys/id_rsa",
  "keys/id_ed25519.pub",
  ".npmrc",
  ".netrc",
  "certs/client.p12",
  "certs/client.pfx",
  "tls/private.key",
  "secrets/prod.yaml",
  "notes/plan.secret",
  "docs/escape.md",
  "docs/relative-escape.md",
  "docs/linkdir/outside.txt",
  "docs/linkdir",
  "docs/git-config.md",
  "docs/env.md",
  "docs/loop.md",
  "docs/dangling.md",
  "docs/linkdir/../../etc/passwd",
  "/proc/self/environ",
];

const refusedCalls: (readonly [string, unknown])[] = [
  ...refusedReads.map(read),
  ["outline_article", { path: ".env" }],
  ["outline_article", { path: "docs/escape.md" }],
  ["outline_article", { path: "docs/git-config.md" }],
  ["search_repo", { pattern: "x", glob: "../**" }],
  ["search_repo", { pattern: "x", glob: "/etc/*" }],
  ["search_repo", { pattern: "(a+)+$", regex: true }],
  ["search_repo", { pattern: "(\\w*)*x", regex: true }],
  ["list_files", { glob: "../*" }],
  ["list_files", { glob: "/etc/*" }],
  ["list_files", { glob: "~/.ssh/*" }],
  ["edit_article", { path: "docs/other.md", edits: [{ old_string: "Other", new_string: "X", reason: "r" }] }],
  ["edit_article", { path: "README.md", edits: [{ old_string: "Readme", new_string: "X", reason: "r" }] }],
  ["edit_article", { path: ".env", edits: [{ old_string: MARKER, new_string: "X", reason: "r" }] }],
  [
    "edit_article",
    { path: "../outside/outside.txt", edits: [{ old_string: MARKER, new_string: "X", reason: "r" }] },
  ],
  ["edit_article", { path: "docs/escape.md", edits: [{ old_string: MARKER, new_string: "X", reason: "r" }] }],
  ["edit_article", { path: "/etc/passwd", edits: [{ old_string: "root", new_string: "X", reason: "r" }] }],
  ["create_article", { path: "src/evil.ts", content: "x", reason: "r" }],
  ["create_article", { path: ARTICLE, content: "x", reason: "r" }],
  ["create_article", { path: "../outside/new.md", content: "x", reason: "r" }],
  ["create_article", { path: "docs/linkdir/new.md", content: "x", reason: "r" }],
  // Inside the root, but the real path (src/new.md) is outside the docs globs.
  ["create_article", { path: "docs/code/new.md", content: "x", reason: "r" }],
  ["create_article", { path: "docs/.env.md", content: "x", reason: "r" }],
  ["create_article", { path: "docs/.git/x.md", content: "x", reason: "r" }],
  ["create_article", { path: "/tmp/x.md", content: "x", reason: "r" }],
  ["create_article", { path: "docs/dangling.md", content: "x", reason: "r" }],
  ["create_article", { path: "docs/new.md", content: "---\ntitle: [broken\n---\n", reason: "r" }],
  ["run_shell", { command: "cat /etc/passwd" }],
  ["read_file", "{not json"],
  ["read_file", { path: 42 }],
  ["read_file", { path: "docs/guide.md", offset: -1 }],
];

describe("sandbox policy against hostile calls", () => {
  it(`refuses all ${refusedCalls.length} calls, leaks nothing and changes no file`, async () => {
    expect(refusedCalls.length).toBeGreaterThanOrEqual(50);
    const { repo, outside } = hostileRepo();
    const before = fingerprint(repo.dir, outside);
    const workspace = new Workspace(repo.dir);
    const host = testToolHost(repo.dir, {
      workspace,
      articlePath: ARTICLE,
      changedFiles: ["src/a.ts"],
      deny: ["secrets/**", "*.secret"],
      allowCreate: true,
    });
    const failures: string[] = [];
    for (const [name, args] of refusedCalls) {
      const [result] = await host.execute([call(name, args)], new AbortController().signal);
      const label = `${name} ${typeof args === "string" ? args : JSON.stringify(args)}`;
      if (!result || result.ok) failures.push(`${label}: not refused: ${result?.content}`);
      else if (!result.content.startsWith("Error: ")) failures.push(`${label}: no error text`);
      if (result?.content.includes(MARKER) || result?.content.includes("repositoryformatversion"))
        failures.push(`${label}: leaked content`);
    }
    expect(failures).toEqual([]);
    expect(host.edits).toEqual([]);
    host.finish();
    expect(workspace.changes()).toEqual([]);
    expect(fingerprint(repo.dir, outside)).toEqual(before);
  });

  it("keeps refused files out of search and listing results", async () => {
    const { repo, outside } = hostileRepo();
    const before = fingerprint(repo.dir, outside);
    const host = testToolHost(repo.dir, {
      articlePath: ARTICLE,
      deny: ["secrets/**", "*.secret"],
    });
    const results = await host.execute(
      [
        call("search_repo", { pattern: MARKER }),
        call("search_repo", { pattern: "SECRET.MARKER", regex: true }),
        call("search_repo", { pattern: "repositoryformatversion" }),
        call("list_files", { glob: "**" }),
        call("list_files", { glob: ".git/**" }),
      ],
      new AbortController().signal,
    );
    expect(results.map((result) => result.content)).toMatchInlineSnapshot(`
      [
        "No matches for text "SECRET-MARKER" (4 files searched). The search is literal and case-sensitive; pass regex: true for a pattern.
      ",
        "No matches for regex "SECRET.MARKER" (4 files searched).
      ",
        "No matches for text "repositoryformatversion" (4 files searched). The search is literal and case-sensitive; pass regex: true for a pattern.
      ",
        "README.md
      docs/code
      docs/guide.md
      docs/other.md
      src/a.ts
      ",
        "No files match ".git/**". Try a wider glob, such as "**/*.md".
      ",
      ]
    `);
    expect(fingerprint(repo.dir, outside)).toEqual(before);
  });
});

describe("SandboxPolicy", () => {
  it("explains each refusal in one line that says what to do", async () => {
    const { repo } = hostileRepo();
    const policy = new SandboxPolicy({ root: repo.dir, deny: ["secrets/**"] });
    const messages: string[] = [];
    for (const path of [
      "/etc/passwd",
      "~/.ssh/id_rsa",
      "../x",
      "a\\b",
      "a\u0000b",
      ".git/config",
      ".env.d/x",
      "secrets/prod.yaml",
      "docs/escape.md",
      "docs/git-config.md",
      "docs/loop.md",
      "docs/dangling.md",
    ]) {
      const result = await policy.resolve(path);
      messages.push(result.ok ? `${path}: allowed` : `${result.code}: ${result.message}`);
    }
    expect(messages).toMatchInlineSnapshot(`
      [
        "absolute: Refused: "/etc/passwd" is an absolute path. Use a repository-relative path with forward slashes, such as "docs/guide.md".",
        "home: Refused: "~/.ssh/id_rsa" points into a home directory. Use a repository-relative path with forward slashes, such as "docs/guide.md".",
        "traversal: Refused: "../x" contains "..". Only paths inside the repository can be used. Use a repository-relative path with forward slashes, such as "docs/guide.md".",
        "backslash: Refused: "a\\\\b" contains a backslash; paths use forward slashes only. Use a repository-relative path with forward slashes, such as "docs/guide.md".",
        "nul: Refused: "a\\u0000b" contains a NUL byte. Paths are plain text.",
        "git_dir: Refused: ".git/config" is inside .git/, which tools cannot touch.",
        "denied: Refused: ".env.d/x" matches the deny pattern ".env*"; such files are never opened.",
        "denied: Refused: "secrets/prod.yaml" matches the deny pattern "secrets/**"; such files are never opened.",
        "outside_root: Refused: "docs/escape.md" is a symlink (or under one) whose target is outside the repository.",
        "git_dir: Refused: "docs/git-config.md" is a symlink to a path that is inside .git/, which tools cannot touch.",
        "symlink_loop: Refused: "docs/loop.md" is a symlink loop.",
        "outside_root: Refused: "docs/dangling.md" is a symlink (or under one) whose target does not exist.",
      ]
    `);
  });

  it("allows ordinary paths, normalising ./ and repeated slashes, and new files under real directories", async () => {
    const { repo } = hostileRepo();
    mkdirSync(join(repo.dir, "docs/sub"), { recursive: true });
    const policy = new SandboxPolicy({ root: repo.dir });
    const allowed = [];
    for (const path of [
      "docs/guide.md",
      "./docs//guide.md",
      "docs/sub/new.md",
      "docs/brand/new/deep.md",
      "README.md",
    ]) {
      const result = await policy.resolve(path);
      allowed.push(result.ok ? result.path : result.message);
    }
    expect(allowed).toEqual([
      "docs/guide.md",
      "docs/guide.md",
      "docs/sub/new.md",
      "docs/brand/new/deep.md",
      "README.md",
    ]);
  });
});

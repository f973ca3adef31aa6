import { describe, expect, it } from "vitest";
import { callShape } from "../../../cli/plan/symbols/call-shape.js";
import type { ImpactPlan } from "../../../shared/plan.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { flagged, planJson, related } from "../../helpers/plan-json.js";

const details = (plan: ImpactPlan) =>
  [...plan.articles, ...plan.related].flatMap((article) => article.impact.map((reason) => reason.detail));

const CACHE =
  "pub trait Store {\n    fn load(&self);\n}\n\npub struct Cache;\n\nimpl Cache {\n    fn slot(&self, KEY) -> usize {\n        0\n    }\n}\n";

// Each test builds a real repository and runs the whole plan; slow on a loaded machine.
describe("what is not a stale statement", { timeout: 120_000 }, () => {
  it("gives a class's new method and field their class as parent: the page listing the file's classes keeps no list of its members", async () => {
    const classes =
      "export class Options {\n  retries = 2;\n}\n\nexport class Request {\n  baseUrl = '';\n  maxRedirects = 10;\n  send() {}\n}\n";
    const repo = gitRepo({
      "source/core.ts": classes,
      "docs/api.md": "# API\n\n- `Options`: what a request takes.\n- `Request`: one request.\n",
      "docs/request.md":
        "# Request\n\n- `baseUrl`: where it goes.\n- `maxRedirects`: how often it follows.\n",
    });
    repo.commit({
      "source/core.ts": classes.replace("  send() {}\n", "  send() {}\n  abort() {}\n  timeout = 0;\n"),
    });
    const plan = await planJson(repo, ["--min-score", "0"]);
    // Before, the new method had no parent: its siblings were the file's classes, on api.md's list.
    expect(flagged(plan)).toEqual(["docs/request.md"]);
    // The new field's siblings are the class's fields that were there before.
    expect(details(plan).join("\n")).toMatch(
      /timeout \(variable of Request, added\); the article documents baseUrl, maxRedirects/,
    );
  });

  it("lists a new top-level constant with the module's values, not its classes; a new class with its classes", async () => {
    const module = "export class Options {}\n\nexport class Request {}\n\nexport const version = '1';\n";
    const repo = gitRepo({
      "source/index.ts": module,
      "docs/api.md": "# API\n\n- `Options`: what a request takes.\n- `Request`: one request.\n",
    });
    repo.commit({ "source/index.ts": `${module}\nexport const supportsBrotli = true;\n` });
    expect(flagged(await planJson(repo, ["--min-score", "0"]))).toEqual([]);
    repo.commit({
      "source/index.ts": `${module}\nexport const supportsBrotli = true;\n\nexport class Response {}\n`,
    });
    const plan = await planJson(repo, ["--min-score", "0"]);
    expect(flagged(plan)).toEqual(["docs/api.md"]);
    expect(details(plan)).toEqual([
      "mentions Response (class, added); the article documents Options, Request",
    ]);
  });

  // Changes after which no page says anything false, even with no bar (--min-score 0).
  it.each([
    {
      title: "needs two siblings on the article's lists: a class with one field before keeps no list",
      files: {
        "source/errors.ts": "export class TimeoutError {\n  errorCode = 'ETIMEDOUT';\n}\n",
        "docs/errors.md": "# Errors\n\n- `errorCode`: what failed.\n",
      },
      change: {
        "source/errors.ts":
          "export class TimeoutError {\n  errorCode = 'ETIMEDOUT';\n  timingsPhase = 'connect';\n}\n",
      },
    },
    {
      title: "reads a method moved from a base class to its subclass, in the same file, as still there",
      files: {
        "src/client.py":
          "class BaseClient:\n    def stream_events(self, url):\n        return url\n\n\nclass Client(BaseClient):\n    pass\n",
        "docs/streaming.md": "# Streaming\n\nCall `client.stream_events(url)`.\n",
      },
      change: {
        "src/client.py":
          "class BaseClient:\n    pass\n\n\nclass Client(BaseClient):\n    def stream_events(self, url):\n        return url\n",
      },
    },
  ])("$title", async ({ files, change }) => {
    const repo = gitRepo(files);
    repo.commit(change);
    expect(flagged(await planJson(repo, ["--min-score", "0"]))).toEqual([]);
  });

  it("reads a name the change removed as still there when a file it left alone declares it", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "command.go": "package cobra\n\ntype Command struct {\n\tUse string\n}\n",
      "cmd/project.go": "package cmd\n\ntype Command struct {\n\tName string\n}\n\nfunc Execute() {}\n",
      "docs/guide.md": "# Guide\n\nDescribe each `Command` with a `Use` line.\n",
      "docs/run.md": "# Run\n\nCall `Execute()` from main.\n",
    });
    repo.commit({ "cmd/project.go": null });
    const plan = await planJson(repo, ["--min-score", "0"]);
    expect(flagged(plan)).toEqual(["docs/run.md"]);
    expect(plan.dropped).toContainEqual({
      symbol: "Command",
      why: "removed, but still declared in command.go",
    });
  });

  it("finds no list in the members of a file added whole: no page documented them yet", async () => {
    const repo = gitRepo({
      "source/index.ts": "export const get = () => 1;\n",
      "docs/timings.md": "# Timings\n\n- `lookup`: the DNS lookup.\n- `connect`: the socket connected.\n",
    });
    repo.commit({
      "source/timer.ts":
        "export interface Timings {\n  start: number;\n  lookup: number;\n  connect: number;\n}\n",
    });
    const plan = await planJson(repo, ["--min-score", "0"]);
    expect(flagged(plan)).toEqual([]);
  });

  it("does not flag a page quoting a call whose parameters kept their names and defaults, only their types changed", async () => {
    const repo = gitRepo({
      "src/lib/api.py":
        "def connect(host, port=80):\n    return host\n\n\ndef close(conn):\n    return conn\n",
      "docs/connect.md": "# Connect\n\n`connect(host)` opens a connection.\n",
      "docs/close.md": "# Close\n\n`close(conn)` closes it.\n",
    });
    repo.commit({
      "src/lib/api.py":
        "def connect(host: str, port: int = 80) -> Conn:\n    return host\n\n\ndef close(conn, force=False):\n    return conn\n",
    });
    const plan = await planJson(repo, ["--min-score", "0"]);
    expect(flagged(plan)).toEqual(["docs/close.md"]);
    expect(related(plan)).toEqual(["docs/connect.md"]);
  });

  it("reads a Rust item under pub(crate) as the crate's own: its mapped page is related", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({
        docs: ["crates/*/README.md"],
        mappings: [{ code: "crates/:crate/src/**", docs: "crates/:crate/README.md" }],
      }),
      "crates/walk/src/lib.rs":
        'pub(crate) const TYPES: &[&str] = &["rust"];\n\npub(crate) struct Work {\n    depth: usize,\n}\n\nimpl Work {\n    pub fn read(&self) -> usize {\n        self.depth\n    }\n}\n',
      "crates/walk/README.md": "# walk\n\nWalks directories.\n",
      "crates/glob/src/lib.rs": "pub fn matches(glob: &str) -> bool {\n    true\n}\n",
      "crates/glob/README.md": "# glob\n\nMatches globs.\n",
      "crates/cache/src/lib.rs": CACHE.replace("KEY", "key: &str"),
      "crates/cache/README.md": "# cache\n\nCaches.\n",
    });
    repo.commit({
      "crates/walk/src/lib.rs":
        'pub(crate) const TYPES: &[&str] = &["rust", "go"];\n\npub(crate) struct Work {\n    depth: usize,\n}\n\nimpl Work {\n    pub fn read(&self, max: usize) -> usize {\n        self.depth\n    }\n}\n',
      "crates/glob/src/lib.rs": "pub fn matches(glob: &str, path: &str) -> bool {\n    true\n}\n",
      // A method without `pub` in an inherent impl is the type's own; a trait's method is not.
      "crates/cache/src/lib.rs": CACHE.replace("KEY", "key: &[u8]"),
    });
    const plan = await planJson(repo);
    expect(flagged(plan)).toEqual(["crates/glob/README.md"]);
    expect(related(plan).sort()).toEqual(["crates/cache/README.md", "crates/walk/README.md"]);
  });
});

describe("callShape", () => {
  it("keeps the names and defaults of the parameters, not their types", () => {
    expect(callShape("def \u0000(url: URL | str, *, timeout: float = 5.0) -> Response:")).toBe(
      "url,*,timeout=5.0",
    );
    expect(callShape("def \u0000(url: URLTypes, *, timeout: float = 5.0):")).toBe("url,*,timeout=5.0");
    expect(callShape("export function \u0000(input: Input, options?: Options): Promise<T>")).toBe(
      "input,options",
    );
    expect(callShape("func (c *Client) \u0000(url string, opts ...Option) error")).toBe("url,opts");
    expect(callShape("pub fn \u0000<F: Fn(u32) -> u32>(&mut self, f: F, n: usize)")).toBe("&self,f,n");
    expect(callShape("const \u0000 = 5")).toBeUndefined();
  });
});

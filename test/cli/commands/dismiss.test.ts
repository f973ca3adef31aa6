import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withDismissal } from "../../../cli/config-edit.js";
import { main } from "../../../cli/main.js";
import { ImpactPlanSchema } from "../../../shared/plan.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { serverArticle } from "../../helpers/port-change.js";
import { runWithScript } from "../../helpers/run-impact.js";

const GUIDE = serverArticle("Server");

/** A config written by hand: tabs, a key order of its own, CRLF line endings. */
const CONFIG = '{\r\n\t"minScore": 0.2,\r\n\t"docs": ["docs/**/*.md"]\r\n}\r\n';

function repo(config = CONFIG): TestRepo {
  const repo = gitRepo({
    "impact.config.json": config,
    "src/server.ts": "export const PORT = 8080;\n",
    "docs/guide.md": GUIDE,
  });
  repo.commit({ "src/server.ts": "export const PORT = 9090;\n" });
  return repo;
}

async function impact(dir: string, ...args: string[]) {
  const io = captureIo(dir);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe("impact dismiss", () => {
  it("writes a dismissed entry keeping the file's formatting, and plan, run and --explain honor it", async () => {
    const dir = repo().dir;
    expect(JSON.parse((await impact(dir, "plan", "--json")).out).articles).toHaveLength(1);

    const dismissed = await impact(
      dir,
      "dismiss",
      "docs/guide.md",
      "--for",
      "src/**",
      "--reason",
      "ports are generated",
    );
    expect(dismissed).toEqual({
      code: 0,
      out: "dismissed docs/guide.md for changes to src/** in impact.config.json\n",
      err: "",
    });
    expect(readFileSync(join(dir, "impact.config.json"), "utf8")).toBe(
      '{\r\n\t"minScore": 0.2,\r\n\t"docs": ["docs/**/*.md"],\r\n\t"dismissed": [\r\n\t\t{"article":"docs/guide.md","for":"src/**","reason":"ports are generated"}\r\n\t]\r\n}\r\n',
    );

    const plan = ImpactPlanSchema.parse(JSON.parse((await impact(dir, "plan", "--json")).out));
    expect(plan.articles).toEqual([]);
    const explain = await impact(dir, "plan", "--explain", "docs/guide.md");
    expect(explain.out).toContain("docs/guide.md has no reason to change");
    expect(explain.out).toContain("attention src/server.ts");
    expect(explain.out).toContain(": dismissed in the config: ports are generated");
    expect(explain.out).toContain("Dismissed in the config for changes to src/**: ports are generated");
    // The run sends nothing to the model: the script has no step, and no call is made.
    const run = await runWithScript(dir, []);
    expect(run.code).toBe(0);
    expect(run.server.requests).toEqual([]);

    // A second entry goes at the end of the list; the same one again is said, not written twice.
    await impact(dir, "dismiss", "docs/guide.md", "--reason", "never");
    expect(readFileSync(join(dir, "impact.config.json"), "utf8")).toContain(
      '"reason":"ports are generated"},\r\n\t\t{"article":"docs/guide.md","reason":"never"}\r\n\t]',
    );
    const again = await impact(dir, "dismiss", "docs/guide.md", "--reason", "twice");
    expect(again.out).toBe("docs/guide.md is already dismissed in impact.config.json: never\n");
  });

  it("refuses without a reason, for a path that is no article, and writes nothing", async () => {
    const dir = repo().dir;
    const noReason = await impact(dir, "dismiss", "docs/guide.md");
    expect(noReason).toMatchObject({
      code: 2,
      err: 'impact dismiss: say why with --reason TEXT (such as --reason "generated from the code")\n',
    });
    const notArticle = await impact(dir, "dismiss", "src/server.ts", "--reason", "x");
    expect(notArticle).toMatchObject({
      code: 2,
      err: "impact dismiss: src/server.ts is not under the docs globs of impact.config.json (or is ignored); dismiss names an article, such as docs/guide.md\n",
    });
    expect(readFileSync(join(dir, "impact.config.json"), "utf8")).toBe(CONFIG);
  });

  it("creates the config when there is none", async () => {
    const dir = gitRepo({ "docs/a.md": "# A\n" }).dir;
    expect((await impact(dir, "dismiss", "docs/a.md", "--reason", "stable")).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "impact.config.json"), "utf8"))).toEqual({
      dismissed: [{ article: "docs/a.md", reason: "stable" }],
    });
  });
});

describe("impact --help", () => {
  it("lists dismiss, and HTML among report's formats", async () => {
    const io = captureIo(process.cwd());
    expect(await main(["--help"], io)).toBe(0);
    expect(io.out).toMatch(/dismiss +remember that an article is not affected by some changes/);
    expect(io.out).toMatch(/report +render an audit as Markdown, HTML or JSON/);
  });
});

describe("withDismissal", () => {
  const entry = { article: "docs/a.md", reason: "r" };
  it("adds to an empty list, an empty object, and leaves a non-object alone", () => {
    expect(withDismissal('{\n  "dismissed": []\n}\n', entry)).toBe(
      '{\n  "dismissed": [\n    {"article":"docs/a.md","reason":"r"}\n  ]\n}\n',
    );
    expect(withDismissal("{}", entry)).toBe(
      '{\n  "dismissed": [\n    {"article":"docs/a.md","reason":"r"}\n  ]\n}',
    );
    expect(withDismissal('{"a": {"b": "}"}, "c": [1]}', entry)).toBe(
      '{"a": {"b": "}"}, "c": [1],\n  "dismissed": [\n    {"article":"docs/a.md","reason":"r"}\n  ]\n}',
    );
    expect(withDismissal("[]", entry)).toBeUndefined();
  });
});

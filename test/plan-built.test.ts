import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { main } from "../cli/main.js";
import { ImpactPlanSchema } from "../shared/plan.js";
import { gitRepo } from "./helpers/git-repo.js";
import { captureIo } from "./helpers/io.js";

/**
 * The built CLI extracts symbols on a worker thread (cli/plan/symbols/worker.ts, compiled
 * only); the sources, as vitest runs them, extract in-process. Both must plan the same.
 */
describe("impact plan, built (symbols on a worker thread) and from source", () => {
  it("gives the same plan, found through the changed symbols", async () => {
    const repo = gitRepo({
      "src/auth.ts":
        "export function loginUser(name: string): boolean {\n  return name.length > 0;\n}\n" +
        "export class SessionStore {\n  open(): void {}\n}\nexport const SESSION_TTL_SECONDS = 3600;\n",
      "src/util.py": "def parse_token(raw):\n    return raw\n",
      "docs/login.md": "# Login\n\nCall `loginUser(name)` to sign in.\n",
      "docs/sessions.md": "# Sessions\n\nA `SessionStore` keeps sessions for `SESSION_TTL_SECONDS`.\n",
      "docs/tokens.md": "# Tokens\n\n`parse_token` reads a token.\n",
      "docs/unrelated.md": "# Unrelated\n\nNothing here.\n",
    });
    repo.commit({
      "src/auth.ts":
        "export function loginUser(name: string, password: string): boolean {\n  return name.length > 0 && password.length > 0;\n}\n" +
        "export class SessionCache {\n  open(): void {}\n}\nexport const SESSION_TTL_SECONDS = 3600;\n",
      "src/util.py": "def parse_token(raw, strict=False):\n    return raw\n",
    });

    const built = execFileSync(
      process.execPath,
      [join(inject("builtPackage"), "cli", "bin.js"), "plan", "--json"],
      { cwd: repo.dir, encoding: "utf8" },
    );
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--json"], io)).toBe(0);
    expect(ImpactPlanSchema.parse(JSON.parse(built))).toEqual(ImpactPlanSchema.parse(JSON.parse(io.out)));
    expect(
      JSON.parse(built)
        .articles.map((article: { path: string }) => article.path)
        .sort(),
    ).toEqual(["docs/login.md", "docs/sessions.md", "docs/tokens.md"]);
  });
});

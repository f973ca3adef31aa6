import { describe, expect, it } from "vitest";
import { removedLiterals } from "../../../../cli/plan/detect/removed-literals.js";
import { parseUnifiedDiff } from "../../../../shared/diff/parse.js";
import { gitRepo } from "../../../helpers/git-repo.js";
import { expectFlaggedFor, planJson } from "../../../helpers/plan-json.js";

const request = (body: string[]) =>
  [
    "const supportsBrotli = typeof process.versions.brotli === 'string';",
    "",
    "export function prepare(headers: Record<string, string>, decompress: boolean): void {",
    "\tconst userAgent = 'got (https://github.com/sindresorhus/got)';",
    "\tif (decompress) {",
    ...body.map((line) => `\t\t${line}`),
    "\t}",
    "\theaders['user-agent'] ??= userAgent;",
    "}",
    "",
  ].join("\n");

describe("a compound string the change removed, quoted whole as code", { timeout: 120_000 }, () => {
  it("flags the page quoting the removed value; not one writing it in prose, nor one quoting a string the file keeps", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "source/request.ts": request([
        "headers['accept-encoding'] = supportsBrotli ? 'gzip, deflate, br' : 'gzip, deflate';",
      ]),
      "docs/options.md":
        "# Options\n\n## decompress\n\nThis will set the `accept-encoding` header to `gzip, deflate, br`.\n",
      "docs/faq.md": "# FAQ\n\nGot asks for gzip, deflate, br when it can.\n",
      "docs/agent.md": "# Agent\n\nThe user agent is `got (https://github.com/sindresorhus/got)`.\n",
    });
    repo.commit({
      "source/request.ts": request([
        "const encodings = ['gzip', 'deflate'];",
        "if (supportsBrotli) encodings.push('br');",
        "headers['accept-encoding'] = encodings.join(', ');",
      ]),
    });
    expectFlaggedFor(await planJson(repo), "docs/options.md", {
      kind: "reference",
      source: "source/request.ts",
      detail: 'quotes "gzip, deflate, br", a string the change removed',
      score: 0.6,
      line: 5,
    });
  });

  it("leaves out imports, templates, flags, bare names and strings another line of the hunks still holds", () => {
    const [file] = parseUnifiedDiff(
      [
        "diff --git a/src/a.ts b/src/a.ts",
        "--- a/src/a.ts",
        "+++ b/src/a.ts",
        "@@ -1,7 +1,2 @@",
        "-import { x } from 'some/module-path';",
        "-const message = 'retry in %s seconds, or later';",
        "-const name = 'retryCount';",
        "-const flag = '--dry-run';",
        "-const kept = 'text/plain, text/html';",
        "-const gone = 'text/markdown; charset=utf-8';",
        "+const moved = 'text/plain, text/html';",
        " export {};",
        "",
      ].join("\n"),
    );
    expect(removedLiterals([file!]).map((literal) => literal.text)).toEqual(["text/markdown; charset=utf-8"]);
  });
});

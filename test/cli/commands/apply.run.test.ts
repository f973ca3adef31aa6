import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyAudit } from "../../../cli/audit/apply-audit.js";
import { main } from "../../../cli/main.js";
import { ConfigSchema } from "../../../shared/config.js";
import { contentHash } from "../../../shared/hash.js";
import { readAuditAt } from "../../helpers/audit-fixture.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { type ScriptedModelServer, startScriptedModelServer } from "../../helpers/scripted-model-server.js";

// `impact apply` on audits written by hand is tested in apply.test.ts; here the audit comes
// from a whole `impact run` against the scripted model.

const DEFAULT_CONFIG = ConfigSchema.parse({});

describe("run → audit → apply", () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("round-trips CRLF, a BOM and a missing final newline byte for byte", async () => {
    const original = "\uFEFF# Flags\r\n\r\nUse --old-flag here.\r\nLast line without newline";
    const repo = gitRepo({
      "impact.config.json": '{"mappings": [{"code": "src/**", "docs": "docs/flags.md"}]}\n',
      "src/flags.ts": 'export const FLAG = "--old-flag";\n',
      "docs/flags.md": original,
    });
    repo.commit({ "src/flags.ts": 'export const FLAG = "--new-flag";\n' });
    server = await startScriptedModelServer({
      "docs/flags.md": [
        {
          toolCalls: [
            {
              name: "edit_article",
              arguments: {
                path: "docs/flags.md",
                edits: [
                  {
                    old_string: "--old-flag",
                    new_string: "--new-flag",
                    reason: "FLAG changed from --old-flag to --new-flag in src/flags.ts",
                    evidence: ["src/flags.ts:1"],
                  },
                ],
                done: true,
              },
            },
          ],
        },
      ],
    });
    const env = {
      OPENAI_API_KEY: "sk-test-not-a-real-key",
      OPENAI_BASE_URL: server.url,
      IMPACT_MODEL: "test-model",
    };
    const run = captureIo(repo.dir, env);
    expect(await main(["run"], run)).toBe(0);
    const audit = readAuditAt(join(repo.dir, ".impact/audit.json"));
    expect(audit.articles[0]?.hashBefore).toBe(contentHash(Buffer.from(original, "utf8")));
    expect(readFileSync(join(repo.dir, "docs/flags.md"), "utf8")).toBe(original);

    expect(await applyAudit(audit, repo.dir, DEFAULT_CONFIG)).toEqual({
      written: ["docs/flags.md"],
      alreadyApplied: [],
    });
    const bytes = readFileSync(join(repo.dir, "docs/flags.md"));
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.toString("utf8")).toBe(original.replace("--old-flag", "--new-flag"));
  });
});

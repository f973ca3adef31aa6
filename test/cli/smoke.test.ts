import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { VERSION } from "../../cli/version.js";
import { redactSecrets } from "../../shared/redact.js";
import { captureIo } from "../helpers/io.js";

describe("impact entry point", () => {
  it("prints its version", async () => {
    const io = captureIo();
    expect(await main(["--version"], io)).toBe(0);
    // VERSION itself is package.json's (commands.test.ts).
    expect(io.out).toBe(`${VERSION}\n`);
  });

  it("refuses an unknown command with exit 2 and one line", async () => {
    const io = captureIo();
    expect(await main(["frobnicate"], io)).toBe(2);
    expect(io.err).toBe('impact: unknown command "frobnicate"; run "impact --help" for the list\n');
  });
});

describe("redactSecrets", () => {
  it("takes out each secret of a list-valued variable, and leaves prose that only looks like one", () => {
    const env = { IMPACT_SERVER_TOKENS: "first-token-aaaa,second-token-bbbb" };
    expect(redactSecrets("bad second-token-bbbb", env)).toBe("bad [redacted]");
    expect(redactSecrets("use token authentication with sk-your-key", env)).toBe(
      "use token authentication with sk-your-key",
    );
  });

  it("removes secret env values and key-shaped strings", () => {
    // Built at run time so that no token-shaped string sits in the repository.
    const fakeGitHubToken = `ghp_${"0".repeat(36)}`;
    const text = `key sk-test-not-a-real-key and ${fakeGitHubToken} and hunter2hunter2`;
    expect(redactSecrets(text, { MY_TOKEN: "hunter2hunter2" })).toBe(
      "key [redacted] and [redacted] and [redacted]",
    );
  });
});

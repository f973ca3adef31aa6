import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main, VERSION } from "../../../cli/main.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

const COMMANDS = ["run", "plan", "apply", "report", "comment", "merge", "serve", "edit", "mcp"];

async function usageErrorOf(argv: string[]): Promise<string> {
  const io = captureIo();
  expect(await main(argv, io)).toBe(2);
  expect(io.out).toBe("");
  return io.err;
}

describe("the command line", () => {
  it("prints the version of package.json", async () => {
    const packageJson = JSON.parse(
      readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    const io = captureIo();
    expect(await main(["--version"], io)).toBe(0);
    expect(io.out).toBe(`${packageJson.version}\n`);
    expect(VERSION).toBe(packageJson.version);
  });

  it.each(COMMANDS)("impact help %s prints the command's --help", async (name) => {
    const viaHelp = captureIo();
    const viaFlag = captureIo();
    expect(await main(["help", name], viaHelp)).toBe(0);
    expect(await main([name, "--help"], viaFlag)).toBe(0);
    expect(viaHelp.out).toBe(viaFlag.out);
    expect(viaHelp.out.startsWith(`Usage: impact ${name} `)).toBe(true);
    expect(viaHelp.out).toContain("  -h, --help");
  });

  it("impact help names an unknown command once", async () => {
    expect(await usageErrorOf(["help", "frobnicate"])).toBe(
      'impact: unknown command "frobnicate"; run "impact --help" for the list\n',
    );
  });

  it("every flag a command accepts is in its help", async () => {
    const io = captureIo();
    await main(["run", "--help"], io);
    for (const flag of ["--repo DIR", "--base REV", "--max-turns N", "--only GLOB", "--json", "--quiet"]) {
      expect(io.out).toContain(flag);
    }
  });

  it("names an unknown option, what the command takes, and where the help is", async () => {
    expect(await usageErrorOf(["report", "a.json", "--json"])).toBe(
      "impact report: unknown option --json; impact report takes --format, --repo, --docs-repo, --help (see: impact report --help)\n",
    );
  });

  it("says a flag needs a value, or takes none", async () => {
    expect(await usageErrorOf(["plan", "--base"])).toBe(
      "impact plan: --base needs a value: --base REV (see: impact plan --help)\n",
    );
    expect(await usageErrorOf(["plan", "--json=yes"])).toBe(
      "impact plan: --json takes no value (see: impact plan --help)\n",
    );
    expect(await usageErrorOf(["plan", "--check=yes"])).toBe(
      "impact plan: --check takes no value or one of --check=strict, --check=advisory (see: impact plan --help)\n",
    );
  });

  it("counts positionals without repeating the command's name", async () => {
    expect(await usageErrorOf(["apply"])).toBe(
      "impact apply: name the audit file: impact apply <audit> (see: impact apply --help)\n",
    );
    expect(await usageErrorOf(["report", "a.json", "b.json"])).toBe(
      "impact report: takes one audit file, got 2 (see: impact report --help)\n",
    );
    expect(await usageErrorOf(["plan", "main"])).toBe(
      'impact plan: unexpected argument "main"; options start with -- (see: impact plan --help)\n',
    );
  });

  it("refuses --max-turns above the cap the config has too", async () => {
    expect(await usageErrorOf(["run", "--max-turns", "1000"])).toBe(
      'impact run: --max-turns takes a whole number from 1 to 100, got "1000"\n',
    );
  });

  it("accepts --json and --quiet on the commands whose help lists them; --quiet wins", async () => {
    const repo = gitRepo({ "docs/a.md": "# A\n\nUses `src/a.ts`.\n", "src/a.ts": "export const a = 1;\n" });
    repo.commit({ "src/a.ts": "export const a = 2;\n" }, "change a");
    const loud = captureIo(repo.dir);
    expect(await main(["plan", "--json"], loud)).toBe(0);
    // The page names the changed file, which contradicts nothing it says: related.
    expect(JSON.parse(loud.out).related).toHaveLength(1);
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--json", "--quiet"], io)).toBe(0);
    expect(io.out).toBe("");
    expect(io.err).toBe("");
  });
});

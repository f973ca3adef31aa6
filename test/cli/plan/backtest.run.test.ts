import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { BacktestReportSchema } from "../../../cli/plan/backtest.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

// Whole `impact plan --backtest` runs, each a plan of every commit of the history; the scoring
// of minimums over replays is tested in backtest.test.ts.

/** A history with known answers: 3 commits changed code and an existing article. */
function history() {
  const repo = gitRepo({
    "src/alpha.ts": "export function alphaThing(a: string) {}\n",
    "src/beta.ts": "export function betaThing(b: string) {}\n",
    "src/delta.ts": "export const deltaValue = 1;\n",
    "docs/alpha.md": "# Alpha\n\nCall `alphaThing(a)`.\n",
    "docs/beta.md": "# Beta\n\nCall `betaThing(b)`.\n",
    "docs/gamma.md": "# Gamma\n\nNothing named.\n",
    "docs/delta.md": "---\nattention:\n  - op: file\n    path: src/delta.ts\n---\n# Delta\n",
  });
  // Found by reference.
  repo.commit(
    {
      "src/alpha.ts": "export function alphaThing(a: string, b: number) {}\n",
      "docs/alpha.md": "# Alpha\n\nCall `alphaThing(a, b)`.\n",
    },
    "alpha takes b",
  );
  // The author fixed gamma, the detector flags beta: one miss, one false alarm. (A new
  // parameter, not a new type alone: a page quoting a call whose types alone changed is related.)
  repo.commit(
    {
      "src/beta.ts": "export function betaThing(b: number, strict = false) {}\n",
      "docs/gamma.md": "# Gamma\n\nNow it talks about numbers.\n",
    },
    "beta takes a number",
  );
  repo.commit({ "src/alpha.ts": "export function alphaThing(a: string, c: number) {}\n" }, "code only");
  // Found by attention.
  repo.commit(
    {
      "src/delta.ts": "export const deltaValue = 2;\n",
      "docs/delta.md": "---\nattention:\n  - op: file\n    path: src/delta.ts\n---\n# Delta\n\nTwo.\n",
    },
    "delta is two",
  );
  repo.commit({ "docs/gamma.md": "# Gamma\n\nDocs only.\n" }, "docs only");
  return repo;
}

describe("impact plan --backtest", () => {
  it("scores recall and precision on a history with known answers, overall and per reason kind", async () => {
    const repo = history();
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--backtest", "10"], io)).toBe(0);
    expect(io.out.replace(/\b[0-9a-f]{12}\b/g, "<sha>")).toMatchInlineSnapshot(`
      "Backtest over the last 3 commits that changed code and docs (only 3 found)

      COMMIT        CHANGED  FLAGGED  FOUND  SUBJECT
      <sha>  1        1        1      delta is two
      <sha>  1        1        0      beta takes a number
      <sha>  1        1        1      alpha takes b

      recall     67% (2/3)
      precision  67% (2/3)
      flagged per commit  1.0

      REASON     FLAGGED  RECALL     PRECISION
      attention  1        33% (1/3)  100% (1/1)
      mapping    0        0% (0/3)   n/a (0/0)
      reference  2        33% (1/3)  50% (1/2)
      history    0        0% (0/3)   n/a (0/0)

      Missed (changed by the commit, not flagged):
        <sha> docs/gamma.md
      "
    `);
    const jsonIo = captureIo(repo.dir);
    expect(await main(["plan", "--backtest", "10", "--json"], jsonIo)).toBe(0);
    const report = BacktestReportSchema.parse(JSON.parse(jsonIo.out));
    expect(report.commits.map((commit) => [commit.subject, commit.changed, commit.flagged])).toEqual([
      ["delta is two", ["docs/delta.md"], ["docs/delta.md"]],
      ["beta takes a number", ["docs/gamma.md"], ["docs/beta.md"]],
      ["alpha takes b", ["docs/alpha.md"], ["docs/alpha.md"]],
    ]);
    expect([report.recall.rate, report.precision.rate, report.flaggedPerCommit]).toEqual([2 / 3, 2 / 3, 1]);
    expect(report.byKind.attention).toEqual({
      flagged: 1,
      recall: { hits: 1, of: 3, rate: 1 / 3 },
      precision: { hits: 1, of: 1, rate: 1 },
    });
  }, 120_000);

  it("stops after N commits and refuses flags that make no sense with it", async () => {
    const repo = history();
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--backtest", "1", "--json"], io)).toBe(0);
    expect(BacktestReportSchema.parse(JSON.parse(io.out)).commits.map((commit) => commit.subject)).toEqual([
      "delta is two",
    ]);
    // A newer commit that adds an article with code is no answer (no existing article changed):
    // it does not use up the count.
    repo.commit({ "src/new.ts": "export const x = 1;\n", "docs/new.md": "# New\n" }, "new article");
    // Nor are commits whose other files cannot be evidence: CI config, tests, a changelog.
    repo.commit(
      { ".github/workflows/ci.yml": "on: push\n", "docs/beta.md": "# Beta\n\nCI badge.\n" },
      "ci only",
    );
    repo.commit(
      { "test/alpha.test.ts": "alphaThing('a', 1);\n", "CHANGELOG.md": "# 2.0\n", "docs/alpha.md": "# A\n" },
      "tests and changelog only",
    );
    const counted = captureIo(repo.dir);
    expect(await main(["plan", "--backtest", "1", "--json"], counted)).toBe(0);
    expect(
      BacktestReportSchema.parse(JSON.parse(counted.out)).commits.map((commit) => commit.subject),
    ).toEqual(["delta is two"]);
    const bad = captureIo(repo.dir);
    expect(await main(["plan", "--backtest", "0"], bad)).toBe(2);
    expect(bad.err).toBe('impact plan: --backtest takes a whole number of 1 or more, got "0"\n');
    const unknown = captureIo(repo.dir);
    expect(await main(["plan", "--backtest", "3", "--head", "nope"], unknown)).toBe(2);
    expect(unknown.err).toBe(
      'impact plan: unknown revision "nope" for --head (check the name, or fetch it)\n',
    );
    const mixed = captureIo(repo.dir);
    expect(await main(["plan", "--backtest", "3", "--check"], mixed)).toBe(2);
  }, 120_000);
});

import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files whose single tests take longest (`impact serve` restarted and on Postgres, a
 * package installed from its tarball, the single executable, the PR bot's chain of
 * processes, the CLI under Bun, a browser), in that order. Started first, they run beside
 * the many short files instead of after them; vitest's own order only knows this once a run
 * has left its timings in the cache (never in CI's fresh clone).
 */
const LONGEST_FIRST = [
  "test/e2e/serve-restart.test.ts",
  "test/e2e/serve-postgres.test.ts",
  "test/e2e/package.test.ts",
  "test/e2e/serve-drain.test.ts",
  "test/e2e/webhook-e2e.test.ts",
  "test/cli/commands/run.test.ts",
  "test/e2e/bun.test.ts",
  "test/e2e/html-report.test.ts",
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array sort is stable: the other files keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

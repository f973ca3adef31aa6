import { expect } from "vitest";
import { main } from "../../cli/main.js";
import { type ImpactPlan, ImpactPlanSchema, type ImpactReason } from "../../shared/plan.js";
import type { TestRepo } from "./git-repo.js";
import { captureIo } from "./io.js";

/** `impact plan --json ARGS` in process in the repository; it must exit 0 (the test fails with its stderr), and its plan is read through the schema. */
export async function planJson(repo: TestRepo, args: string[] = []): Promise<ImpactPlan> {
  const io = captureIo(repo.dir);
  const code = await main(["plan", "--json", ...args], io);
  expect(code, io.err).toBe(0);
  return ImpactPlanSchema.parse(JSON.parse(io.out));
}

/** The paths of the articles the plan flags (impacted), in the plan's order. */
export const flagged = (plan: ImpactPlan): string[] =>
  plan.articles.filter((article) => article.status === "impacted").map((article) => article.path);

/** The paths of the related articles: about the change, contradicted in nothing, listed apart and never flagged. */
export const related = (plan: ImpactPlan): string[] => plan.related.map((article) => article.path);

/** Checks that the plan flags `path` alone, first for a stale reason that matches `reason` (its detail, line, hunk…). */
export function expectFlaggedFor(plan: ImpactPlan, path: string, reason: Partial<ImpactReason>): void {
  expect(flagged(plan)).toEqual([path]);
  expect(plan.articles[0]?.impact[0]).toMatchObject({ stale: true, ...reason });
}

/** The details of an article's reasons, flagged or related, in the plan's order; none when the plan does not list it. */
export const details = (plan: ImpactPlan, path: string): string[] =>
  [...plan.articles, ...plan.related]
    .find((article) => article.path === path)
    ?.impact.map((reason) => reason.detail) ?? [];

/** Checks that the plan flags `path` alone, for exactly the reasons whose details are given. */
export function expectFlaggedWith(plan: ImpactPlan, path: string, reasons: string[]): void {
  expect(flagged(plan)).toEqual([path]);
  expect(details(plan, path)).toEqual(reasons);
}

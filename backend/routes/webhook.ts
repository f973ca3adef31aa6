import { createHash } from "node:crypto";
import { Hono } from "hono";
import type { Logger } from "pino";
import { z } from "zod";
import type { PullRequestJob } from "../job.js";
import type { EnqueueOutcome } from "../store/state-store.js";
import { WebhookBodyGate } from "../webhook-body.js";
import { fail, failInvalidBody } from "./fail.js";

const ACTED_ON = new Set(["opened", "synchronize", "reopened", "ready_for_review"]);

export interface WebhookDeps {
  secret: string;
  /** Reads and verifies bodies; default: a gate with the caps of shared/limits.ts. */
  bodies?: WebhookBodyGate;
  /**
   * Records the delivery by its keys (`delivery:<X-GitHub-Delivery>` and `body:<sha256 of
   * the signed body>`, so a replayed body under a fresh id is a duplicate too) and takes its
   * job, as one step (see EnqueueOutcome): queued, superseding an older push, a duplicate,
   * stale, or refused when full. A refused delivery, or one whose step failed, is not
   * recorded, so GitHub's redelivery is taken.
   */
  enqueue: (job: PullRequestJob, deliveryKeys: readonly string[]) => Promise<EnqueueOutcome> | EnqueueOutcome;
  /** App mode: a delivery that names no installation is ignored (204). */
  requireInstallation?: boolean;
}

type WebhookEnv = { Variables: { webhookBody: Uint8Array } };

const PullRequestEventSchema = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  pull_request: z.object({
    head: z.object({ sha: z.string().regex(/^[0-9a-f]{40}$/) }),
    base: z.object({ sha: z.string().regex(/^[0-9a-f]{40}$/) }),
    updated_at: z.string().datetime().optional(),
  }),
  installation: z.object({ id: z.number().int().positive() }).optional(),
  repository: z.object({
    full_name: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/),
    clone_url: z.string().min(1).max(2048),
  }),
});

/**
 * The PR comment bot, POST /webhooks/github: the body checked against its signature as it
 * streams in, then a pull_request delivery the bot acts on becomes a queued job.
 */
export function webhookRoutes(webhook: WebhookDeps, options: { logger: Logger }) {
  const { logger } = options;
  const bodies = webhook.bodies ?? new WebhookBodyGate();
  const app = new Hono<WebhookEnv>();
  app.post(
    "/webhooks/github",
    // Hashed as it streams in, refused early (no signature, too large, too many at once).
    async (c, next) => {
      const body = await bodies.read(c.req.raw, webhook.secret);
      if (!body.ok) {
        if (body.status === 503) c.header("retry-after", String(body.retryAfterSeconds));
        return fail(c, body.status, body.code, body.message);
      }
      c.set("webhookBody", body.raw);
      await next();
    },
    async (c) => {
      const raw = c.get("webhookBody");
      const event = c.req.header("x-github-event") ?? "";
      const delivery = c.req.header("x-github-delivery") ?? "";
      if (!/^[A-Za-z0-9-]{1,100}$/.test(delivery)) {
        return fail(c, 400, "invalid_body", "missing or malformed X-GitHub-Delivery");
      }
      const log = logger.child({ delivery, event });
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder().decode(raw));
      } catch {
        return fail(c, 400, "invalid_json", "the body is not JSON");
      }
      const action = (json as { action?: unknown } | null)?.action;
      if (event !== "pull_request" || typeof action !== "string" || !ACTED_ON.has(action)) {
        log.info({ action }, "event ignored");
        return c.body(null, 204);
      }
      const parsed = PullRequestEventSchema.safeParse(json);
      if (!parsed.success) return failInvalidBody(c, "invalid pull_request payload", parsed.error, false);
      const payload = parsed.data;
      if (webhook.requireInstallation && !payload.installation) {
        log.info("delivery names no App installation; ignored");
        return c.body(null, 204);
      }
      const job: PullRequestJob = {
        deliveryId: delivery,
        repository: { fullName: payload.repository.full_name, cloneUrl: payload.repository.clone_url },
        number: payload.number,
        headSha: payload.pull_request.head.sha,
        baseSha: payload.pull_request.base.sha,
        installationId: payload.installation?.id,
        updatedAt: payload.pull_request.updated_at || undefined,
      };
      const keys = [`delivery:${delivery}`, `body:${createHash("sha256").update(raw).digest("hex")}`];
      const outcome = await webhook.enqueue(job, keys);
      if (outcome === "duplicate") {
        log.info("duplicate delivery ignored");
        return c.body(null, 204);
      }
      if (outcome === "full" || outcome === "repository_full") {
        log.warn({ repository: job.repository.fullName, outcome }, "queue full; delivery refused");
        c.header("retry-after", "60");
        return fail(
          c,
          503,
          "queue_full",
          outcome === "full"
            ? "too many pull requests queued; redeliver later"
            : `too many pull requests of ${job.repository.fullName} queued; redeliver later`,
        );
      }
      if (outcome === "stale") {
        log.info(
          { repository: job.repository.fullName, pr: job.number },
          "older than the PR's latest delivery; ignored",
        );
        return c.body(null, 204);
      }
      log.info({ repository: job.repository.fullName, pr: job.number, outcome }, "pull request queued");
      return c.json({ queued: true, superseded: outcome === "superseded" }, 202);
    },
  );
  return app;
}

import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { issueLines } from "../../shared/zod-issues.js";

export type ErrorCode =
  | "invalid_body"
  | "invalid_json"
  | "unauthorized"
  | "body_too_large"
  | "body_timeout"
  | "busy"
  | "rate_limited"
  | "upstream_error"
  | "upstream_timeout"
  | "not_configured"
  | "model_not_allowed"
  | "token_budget"
  | "not_found"
  | "queue_full"
  | "internal";

/** Every error answer: `{"error": {"code", "message", …extra}}`. */
export function fail(
  c: Context,
  status: ContentfulStatusCode,
  code: ErrorCode,
  message: string,
  extra: object = {},
) {
  return c.json({ error: { code, message, ...extra } }, status);
}

/** Bad fields listed in a 400 answer, at most this many. */
const MAX_ISSUES = 20;

/** A 400 `invalid_body` whose message names the first bad field (`what at path`) and whose `issues` list them. */
export function failInvalidBody(c: Context, what: string, error: z.ZodError, withMessage: boolean) {
  const issues = issueLines(error.issues).slice(0, MAX_ISSUES);
  const first = issues[0];
  const where = first?.path || "(top level)";
  const message = withMessage && first ? `${what} at ${where}: ${first.message}` : `${what} at ${where}`;
  return fail(c, 400, "invalid_body", message, { issues });
}

import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A `pull_request` webhook body from the fixture, for a PR from `base` to `head` of the
 * repository cloned from `cloneUrl`. `installation: null` leaves the installation out (a
 * delivery for token mode); a number replaces the fixture's installation id.
 */
export function pullRequestPayload(values: {
  action?: string;
  base: string;
  head: string;
  cloneUrl: string;
  number?: number;
  installation?: number | null;
}): string {
  const json = JSON.parse(
    readFileSync(join(import.meta.dirname, "..", "fixtures", "github", "pull_request.opened.json"), "utf8")
      .replaceAll("__BASE_SHA__", values.base)
      .replaceAll("__HEAD_SHA__", values.head)
      .replaceAll("__CLONE_URL__", values.cloneUrl),
  );
  json.action = values.action ?? "opened";
  json.number = values.number ?? 42;
  if (values.installation === null) delete json.installation;
  else if (values.installation !== undefined) json.installation.id = values.installation;
  return JSON.stringify(json);
}

/**
 * A webhook delivery signed with `secret` as GitHub signs it, to `url` (a running
 * `impact serve`) or to the in-process app's own origin.
 */
export function signedDelivery(
  secret: string,
  body: string,
  id: string,
  options: { url?: string; event?: string } = {},
): Request {
  return new Request(`${options.url ?? "http://bot.test"}/webhooks/github`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": options.event ?? "pull_request",
      "x-github-delivery": id,
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    },
    body,
  });
}

import { fixScript, portRepo } from "./audit-fixture.js";
import { startFakeGitHub } from "./fake-github.js";
import type { ScriptStep } from "./scripted-model-server.js";
import { startScriptedModelServer } from "./scripted-model-server.js";
import { SERVE_FAKES, serveEnv } from "./serve-process.js";
import { signedDelivery } from "./webhook-delivery.js";

/** Posts a webhook delivery of `body` with id `id`, signed with the serve tests' secret, to `url`. */
export const deliverTo = (url: string, body: string, id: string): Promise<Response> =>
  fetch(signedDelivery(SERVE_FAKES.secret, body, id, { url }));

/**
 * What an `impact serve` of the restart tests works against: a PR fixture repository, a fake
 * GitHub knowing its PRs, and a model whose calls hang until `answer()` (or, with `slowMs`,
 * answer after that long). `env(dataDir)` is the server's environment with that data folder.
 */
/** What a serve test talks to: the repository, the fake GitHub, the scripted model, the env. */
export type ServeWorld = Awaited<ReturnType<typeof serveWorld>>;

export async function serveWorld(options: { slowMs?: number } = {}) {
  const repo = portRepo(["alpha"]);
  const head = repo.git("rev-parse", "HEAD");
  const base = repo.git("rev-parse", "HEAD~1");
  const github = await startFakeGitHub({ token: SERVE_FAKES.githubToken });
  let answering = false;
  const reply = (fixScript(["alpha"]) as Record<string, ScriptStep[]>)["docs/alpha.md"]![0]!;
  const upstream = await startScriptedModelServer(() =>
    answering ? reply : options.slowMs ? { ...reply, delayMs: options.slowMs } : { hang: true },
  );
  const env = (dataDir: string, extra: Record<string, string> = {}) =>
    serveEnv({ github: github.url, model: upstream.url }, { IMPACT_DATA_DIR: dataDir, ...extra });
  return { repo, head, base, github, upstream, env, answer: () => (answering = true) };
}

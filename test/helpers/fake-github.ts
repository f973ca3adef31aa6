import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";

interface FakeComment {
  id: number;
  body: string;
  html_url: string;
  user: { login: string; type: string };
}

interface FakeReviewComment {
  id: number;
  path: string;
  line: number;
  start_line?: number;
  body: string;
  commit_id: string;
}

interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  /** The token the request authenticated with. */
  token?: string;
}

/** A GitHub App the fake knows: it issues installation tokens to JWTs signed with its key. */
export interface FakeApp {
  id: number;
  /** The public half of the App's key (PEM): JWTs must verify against it. */
  publicKey: string;
  /** Installation ids, and whether each is suspended. */
  installations: Record<number, { suspended?: boolean }>;
}

/** One installation token the fake issued. */
interface IssuedToken {
  token: string;
  installationId: number;
  repositories: unknown;
  permissions: unknown;
  revoked: boolean;
}

interface InjectedFailure {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** Answer with an HTML page holding `message` instead of GitHub's JSON (a proxy's error page). */
  html?: boolean;
}

export interface FakeGitHub {
  /** API root to use as GITHUB_API_URL. */
  url: string;
  /** Every request that matched a route, in order (GETs included). */
  requests: RecordedRequest[];
  /** Requests no route expected, or with the wrong token; the test fails if any. */
  unexpected: string[];
  comments(repository: string, number: number): FakeComment[];
  /** Adds a comment as if someone (or an earlier run) had posted it. */
  seed(repository: string, number: number, body: string, login?: string): FakeComment;
  /** Installation tokens issued so far (App mode), in order. */
  issued: IssuedToken[];
  /** Sets what GET /repos/R/pulls/N answers: the PR's head and state. */
  setPull(repository: string, number: number, pull: { head: string; state?: "open" | "closed" }): void;
  /** Sets what GET pulls/N/files answers: the PR's files and their diffs. */
  setPullFiles(repository: string, number: number, files: Array<{ filename: string; patch?: string }>): void;
  reviewComments(repository: string, number: number): FakeReviewComment[];
  /** The next matching requests answer with these failures first. */
  failNext(...failures: InjectedFailure[]): void;
  close(): Promise<void>;
}

/**
 * A fake GitHub REST API on 127.0.0.1 that knows the issue-comment endpoints the bot
 * uses. Any other request, or one without `token`, is answered 400 and recorded; when
 * called inside a test, the test fails on it when it finishes.
 */
export async function startFakeGitHub(options: { token?: string; app?: FakeApp }): Promise<FakeGitHub> {
  const appKey: KeyObject | undefined = options.app ? createPublicKey(options.app.publicKey) : undefined;
  const issued: IssuedToken[] = [];
  const pulls = new Map<string, { head: string; state: "open" | "closed" }>();
  const threads = new Map<string, FakeComment[]>();
  const requests: RecordedRequest[] = [];
  const unexpected: string[] = [];
  const failures: InjectedFailure[] = [];
  let nextId = 1000;
  const pullFiles = new Map<string, Array<{ filename: string; patch?: string }>>();
  const reviews = new Map<string, FakeReviewComment[]>();
  const reviewThread = (repository: string, number: number) => listOf(reviews, repository, number);
  const thread = (repository: string, number: number) => listOf(threads, repository, number);
  const addComment = (repository: string, number: number, body: string, login: string) => {
    const id = nextId++;
    const comment: FakeComment = {
      id,
      body,
      html_url: `https://github.example/${repository}/pull/${number}#issuecomment-${id}`,
      user: { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
    };
    thread(repository, number).push(comment);
    return comment;
  };
  const findComment = (repository: string, id: number) => {
    for (const [key, list] of threads) {
      if (!key.startsWith(`${repository}#`)) continue;
      const index = list.findIndex((comment) => comment.id === id);
      if (index >= 0) return { list, index, number: Number(key.slice(repository.length + 1)) };
    }
    return undefined;
  };

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const method = request.method ?? "GET";
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(body === undefined ? "" : JSON.stringify(body));
    };
    const fail = (failure: InjectedFailure) => {
      if (!failure.html) return send(failure.status, { message: failure.message }, failure.headers);
      response.writeHead(failure.status, { "content-type": "text/html; charset=utf-8", ...failure.headers });
      response.end(`<!DOCTYPE html><html><body><h1>${failure.message}</h1></body></html>`);
    };
    const refuse = (why: string) => {
      unexpected.push(`${method} ${url.pathname}${url.search}: ${why}`);
      send(400, { message: `fake GitHub: unexpected request (${why})` });
    };
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return refuse("body is not JSON");
    }
    const installation = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
    if (installation && method === "POST" && options.app) {
      const app = options.app;
      const jwt = /^bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
      const claims = jwt && appKey ? verifiedClaims(jwt, appKey) : undefined;
      if (!claims || String(claims.iss) !== String(app.id)) {
        return send(401, { message: "A JSON web token could not be decoded" });
      }
      const id = Number(installation[1]);
      const known = app.installations[id];
      if (!known) return send(404, { message: "Not Found" });
      if (known.suspended) return send(403, { message: "This installation has been suspended" });
      const requested = body as { repositories?: string[]; permissions?: unknown } | undefined;
      const token = `ghs_fake_installation_token_${issued.length + 1}_${id}`;
      issued.push({
        token,
        installationId: id,
        repositories: requested?.repositories,
        permissions: requested?.permissions,
        revoked: false,
      });
      return send(201, {
        token,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        permissions: requested?.permissions ?? {},
        repository_selection: "selected",
        repositories: (requested?.repositories ?? []).map((name, index) => ({ id: index + 1, name })),
      });
    }
    const presented = /^token (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const live = issued.find((entry) => entry.token === presented && !entry.revoked);
    if (!presented || (presented !== options.token && !live)) return refuse("wrong or missing token");
    if (url.pathname === "/installation/token" && method === "DELETE" && live) {
      live.revoked = true;
      return send(204);
    }
    const pull = /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/.exec(url.pathname);
    if (pull && method === "GET") {
      requests.push({ method, path: url.pathname, body, token: presented });
      const failure = failures.shift();
      if (failure) return fail(failure);
      const known = pulls.get(`${pull[1]}#${pull[2]}`);
      if (!known) return send(404, { message: "Not Found" });
      return send(200, { number: Number(pull[2]), state: known.state, head: { sha: known.head } });
    }

    let match = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (match && (method === "GET" || method === "POST")) {
      const [, repository, number] = match as unknown as [string, string, string];
      requests.push({ method, path: url.pathname, body, token: presented });
      const failure = failures.shift();
      if (failure) return fail(failure);
      if (method === "GET") {
        const perPage = Number(url.searchParams.get("per_page") ?? 30);
        const page = Number(url.searchParams.get("page") ?? 1);
        const list = thread(repository, Number(number));
        return send(200, list.slice((page - 1) * perPage, page * perPage));
      }
      const commentBody = (body as { body?: unknown } | undefined)?.body;
      if (typeof commentBody !== "string") return refuse("POST without a string body");
      return send(201, addComment(repository, Number(number), commentBody, "impact-bot[bot]"));
    }
    match = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (match && (method === "GET" || method === "PATCH" || method === "DELETE")) {
      const [, repository, id] = match as unknown as [string, string, string];
      requests.push({ method, path: url.pathname, body, token: presented });
      const failure = failures.shift();
      if (failure) return fail(failure);
      const found = findComment(repository, Number(id));
      if (method === "GET") {
        // As GitHub answers: the comment with the URL of the issue (the PR) it is on.
        if (!found) return send(404, { message: "Not Found" });
        const issueUrl = `http://${request.headers.host}/repos/${repository}/issues/${found.number}`;
        return send(200, { ...found.list[found.index], issue_url: issueUrl });
      }
      if (!found) return refuse(`no comment ${id}`);
      if (method === "DELETE") {
        found.list.splice(found.index, 1);
        return send(204);
      }
      const commentBody = (body as { body?: unknown } | undefined)?.body;
      if (typeof commentBody !== "string") return refuse("PATCH without a string body");
      found.list[found.index]!.body = commentBody;
      return send(200, found.list[found.index]);
    }
    match = /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/(files|comments|reviews)$/.exec(url.pathname);
    if (match) {
      const [, repository, numberText, what] = match as unknown as [string, string, string, string];
      const number = Number(numberText);
      const page = Number(url.searchParams.get("page") ?? 1);
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      const slice = <T>(list: T[]) => list.slice((page - 1) * perPage, page * perPage);
      if (method === "GET" && what === "files") {
        requests.push({ method, path: url.pathname, body });
        return send(200, slice(pullFiles.get(`${repository}#${number}`) ?? []));
      }
      if (method === "GET" && what === "comments") {
        requests.push({ method, path: url.pathname, body });
        return send(200, slice(reviewThread(repository, number)));
      }
      if (method === "POST" && what === "reviews") {
        const review = body as {
          commit_id?: unknown;
          event?: unknown;
          body?: unknown;
          comments?: Array<{
            path?: unknown;
            line?: unknown;
            start_line?: unknown;
            side?: unknown;
            body?: unknown;
          }>;
        };
        if (
          typeof review?.commit_id !== "string" ||
          review.event !== "COMMENT" ||
          typeof review.body !== "string"
        ) {
          return refuse("review without commit_id, event COMMENT and body");
        }
        const files = pullFiles.get(`${repository}#${number}`) ?? [];
        for (const comment of review.comments ?? []) {
          if (
            typeof comment.path !== "string" ||
            typeof comment.line !== "number" ||
            typeof comment.body !== "string"
          ) {
            return refuse("review comment without path, line and body");
          }
          if (comment.side !== "RIGHT" || !files.some((file) => file.filename === comment.path)) {
            return refuse(`review comment on ${comment.path}, which is not in the pull request`);
          }
        }
        requests.push({ method, path: url.pathname, body });
        for (const comment of review.comments ?? []) {
          reviewThread(repository, number).push({
            id: nextId++,
            path: comment.path as string,
            line: comment.line as number,
            ...(typeof comment.start_line === "number" ? { start_line: comment.start_line } : {}),
            body: comment.body as string,
            commit_id: review.commit_id,
          });
        }
        return send(200, { id: nextId++, state: "COMMENTED" });
      }
    }
    return refuse("no such route in the fake");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeGitHub = {
    url: `http://127.0.0.1:${port}`,
    requests,
    unexpected,
    issued,
    setPull: (repository, number, pull) => {
      pulls.set(`${repository}#${number}`, { head: pull.head, state: pull.state ?? "open" });
    },
    comments: (repository, number) => thread(repository, number),
    seed: (repository, number, body, login = "someone") => addComment(repository, number, body, login),
    setPullFiles: (repository, number, files) => {
      pullFiles.set(`${repository}#${number}`, files);
    },
    reviewComments: (repository, number) => reviewThread(repository, number),
    failNext: (...more) => {
      failures.push(...more);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  try {
    onTestFinished(async () => {
      await fake.close();
      if (unexpected.length > 0)
        throw new Error(`fake GitHub got unexpected requests:\n${unexpected.join("\n")}`);
    });
  } catch {
    // Outside a test the caller closes it and checks `unexpected`.
  }
  return fake;
}

/** The claims of an RS256 JWT whose signature verifies with `key` and that has not expired. */
function verifiedClaims(jwt: string, key: KeyObject): { iss?: unknown; exp?: number } | undefined {
  const [header, payload, signature] = jwt.split(".");
  if (!header || !payload || !signature) return undefined;
  const signed = verify(
    "RSA-SHA256",
    Buffer.from(`${header}.${payload}`),
    key,
    Buffer.from(signature, "base64url"),
  );
  if (!signed) return undefined;
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
    iss?: unknown;
    exp?: number;
  };
  if (typeof claims.exp !== "number" || claims.exp * 1000 < Date.now()) return undefined;
  return claims;
}

/** The list kept for pull request `number` of `repository`, made empty on first use. */
function listOf<Item>(lists: Map<string, Item[]>, repository: string, number: number): Item[] {
  const key = `${repository}#${number}`;
  let list = lists.get(key);
  if (!list) {
    list = [];
    lists.set(key, list);
  }
  return list;
}

import { createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createAppAuth } from "@octokit/auth-app";
import { ImpactError } from "../shared/errors.js";
import type { GitHubClient } from "../shared/github-client.js";
import type { PullRequestJob } from "./job.js";

/**
 * What a job's token may do: read the code, read and write pull requests and their
 * (issue) comments. Nothing else, and only on the delivery's one repository.
 */
export const JOB_PERMISSIONS = {
  contents: "read",
  metadata: "read",
  pull_requests: "write",
  issues: "write",
} as const;

/** A job's token, for the clone, the head check and `impact comment`; `release` ends it. */
export interface JobCredentials {
  token: string;
  release(): Promise<void>;
}

export interface GitHubAuth {
  readonly mode: "token" | "app";
  forJob(job: PullRequestJob): Promise<JobCredentials>;
}

export type GitHubAppAuthReason =
  | "no_installation"
  | "malformed_key"
  | "key_unreadable"
  | "app_rejected"
  | "installation_forbidden"
  | "installation_missing"
  | "repository_not_installed"
  | "unreachable";

/** The App could not get an installation token; `reason` says which setting or state to fix. */
export class GitHubAppAuthError extends ImpactError {
  readonly reason: GitHubAppAuthReason;
  readonly status: number | undefined;
  constructor(
    reason: GitHubAppAuthReason,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super("github", message, { cause: options.cause });
    this.reason = reason;
    this.status = options.status;
  }
}

/** Token mode: every job uses the one GITHUB_TOKEN. */
export function tokenAuth(token: string): GitHubAuth {
  return { mode: "token", forJob: async () => ({ token, release: async () => {} }) };
}

export interface AppAuthOptions {
  appId: string;
  /** The PEM key: read for each token, so a key file can be rotated without a restart. */
  privateKey: () => Promise<string>;
  /** The server's GitHub client (GITHUB_API_URL, with no token of its own). */
  github: GitHubClient;
}

/**
 * App mode: each job gets a fresh installation token for the delivery's installation,
 * limited to the delivery's repository and JOB_PERMISSIONS, and revoked when the job ends.
 */
export function appAuth(options: AppAuthOptions): GitHubAuth {
  const { github } = options;
  return {
    mode: "app",
    async forJob(job) {
      const installationId = job.installationId;
      if (installationId === undefined) {
        throw new GitHubAppAuthError("no_installation", "the delivery names no App installation");
      }
      let privateKey: string;
      try {
        privateKey = await options.privateKey();
      } catch (error) {
        throw new GitHubAppAuthError(
          "key_unreadable",
          `cannot read the App's private key (${(error as NodeJS.ErrnoException).code ?? String(error)}): check GITHUB_APP_PRIVATE_KEY_FILE`,
          { cause: error },
        );
      }
      try {
        createPrivateKey(privateKey);
      } catch (error) {
        throw new GitHubAppAuthError(
          "malformed_key",
          "the App's private key is not a PEM private key: use the .pem file GitHub generated for the App",
          { cause: error },
        );
      }
      const auth = createAppAuth({
        appId: options.appId,
        privateKey,
        request: github.request,
      });
      // The webhook's schema checked full_name as owner/name.
      const name = job.repository.fullName.slice(job.repository.fullName.indexOf("/") + 1);
      let token: string;
      try {
        ({ token } = await auth({
          type: "installation",
          installationId,
          repositoryNames: [name],
          permissions: { ...JOB_PERMISSIONS },
          // Every job its own token, so revoking one at the job's end cannot break another.
          refresh: true,
        }));
      } catch (error) {
        throw authFailure(error, options.appId, installationId, job.repository.fullName);
      }
      return {
        token,
        release: async () => {
          // Best effort: the token expires within the hour anyway.
          await github
            .request("DELETE /installation/token", { headers: { authorization: `token ${token}` } })
            .catch(() => undefined);
        },
      };
    },
  };
}

function authFailure(
  error: unknown,
  appId: string,
  installationId: number,
  repository: string,
): GitHubAppAuthError {
  const status = (error as { status?: unknown }).status;
  const said = (error as { response?: { data?: { message?: unknown } } }).response?.data?.message;
  const github = typeof said === "string" ? `: ${said.slice(0, 200)}` : "";
  if (typeof status !== "number") {
    return new GitHubAppAuthError(
      "unreachable",
      `cannot reach GitHub for an installation token (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const what = `GitHub refused an installation token (HTTP ${status}${github})`;
  if (status === 401) {
    return new GitHubAppAuthError(
      "app_rejected",
      `${what}: the App's JWT was rejected; check GITHUB_APP_ID (${appId}) and that the private key belongs to that App`,
      { status, cause: error },
    );
  }
  if (status === 403) {
    return new GitHubAppAuthError(
      "installation_forbidden",
      `${what}: installation ${installationId} is suspended or may not be used; an owner can unsuspend it in the App's settings`,
      { status, cause: error },
    );
  }
  if (status === 404) {
    return new GitHubAppAuthError(
      "installation_missing",
      `${what}: installation ${installationId} does not exist for App ${appId}; check GITHUB_APP_ID`,
      { status, cause: error },
    );
  }
  if (status === 422) {
    return new GitHubAppAuthError(
      "repository_not_installed",
      `${what}: ${repository} is not among the repositories of installation ${installationId}, or the App lacks a permission it needs`,
      { status, cause: error },
    );
  }
  return new GitHubAppAuthError("unreachable", what, { status, cause: error });
}

/**
 * The App's key from GITHUB_APP_PRIVATE_KEY (`\n` escapes allowed) or GITHUB_APP_PRIVATE_KEY_FILE;
 * undefined when neither is set.
 */
export function privateKeySource(env: {
  GITHUB_APP_PRIVATE_KEY?: string | undefined;
  GITHUB_APP_PRIVATE_KEY_FILE?: string | undefined;
}): (() => Promise<string>) | undefined {
  const inline = env.GITHUB_APP_PRIVATE_KEY;
  if (inline) {
    const key = inline.includes("\\n") ? inline.replace(/\\n/g, "\n") : inline;
    return async () => key;
  }
  const file = env.GITHUB_APP_PRIVATE_KEY_FILE;
  return file ? () => readFile(file, "utf8") : undefined;
}

import { z } from "zod";
import { UsageError } from "../shared/errors.js";
import {
  DEFAULT_BOT_MAX_PENDING,
  DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_JOB_LEASE_MS,
  DEFAULT_RESULT_CACHE_BYTES_PER_REPOSITORY,
  DEFAULT_ROUTER_MAX_TOKENS,
  DEFAULT_ROUTER_TOKENS_PER_DAY,
  WEBHOOK_CONCURRENT_BODIES,
} from "../shared/limits.js";
import { DEFAULT_MODEL } from "../shared/model/model-names.js";
import { describeFirstIssue } from "../shared/zod-issues.js";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8787;
/** The shortest bearer token the server accepts (router and /metrics). */
const MIN_TOKEN_LENGTH = 16;

/** Which part of the server a variable configures (for `impact serve --help` and the docs). */
type Part = "router" | "bot" | "router, bot" | "server";

/** Each variable's part and help text, and how its default reads when the value is not plain. */
interface VariableMeta {
  part: Part;
  description: string;
  defaultText?: string;
  [key: string]: unknown;
}

const variable = <T extends z.ZodType>(schema: T, meta: VariableMeta): T => schema.meta(meta);

/** A value with an error message that says what to give instead. */
function parsed<T>(check: (text: string) => T | undefined, expected: string, echo = true) {
  return z.string().transform((text, context): T => {
    const value = check(text.trim());
    if (value === undefined) {
      context.addIssue({
        code: "custom",
        message: echo ? `${expected}, got ${JSON.stringify(text.slice(0, 100))}` : expected,
      });
      return z.NEVER;
    }
    return value;
  });
}

const positiveNumber = () =>
  parsed((text) => {
    const number = Number(text);
    return text !== "" && Number.isFinite(number) && number > 0 ? number : undefined;
  }, "must be a positive number");

const count = () =>
  parsed((text) => (/^[1-9]\d*$/.test(text) ? Number(text) : undefined), "must be a whole number from 1 up");

const list = () =>
  z.string().transform((text) =>
    text
      .split(/[\s,]+/)
      .map((entry) => entry.trim())
      .filter(Boolean),
  );

const port = () =>
  parsed(
    (text) => (/^\d+$/.test(text) && Number(text) <= 65535 ? Number(text) : undefined),
    "must be a number from 0 to 65535",
  );

/**
 * The environment of `impact serve`, parsed once: each variable with its part, help text,
 * default and parsing. `impact serve --help` and docs/backend.md show this table. An empty
 * variable counts as unset (an unset `${{ vars.X }}` in Actions is "").
 */
export const ServeEnvSchema = z.object({
  IMPACT_SERVER_TOKENS: variable(
    list().refine((tokens) => tokens.every((token) => token.length >= MIN_TOKEN_LENGTH), {
      message: `every token needs at least ${MIN_TOKEN_LENGTH} characters (make one with: openssl rand -hex 24)`,
    }),
    {
      part: "router",
      description: `accepted bearer tokens, separated by commas or spaces; each at least ${MIN_TOKEN_LENGTH} characters; turns the router on`,
    },
  ).optional(),
  OPENAI_API_KEY: variable(z.string(), {
    part: "router, bot",
    description: "the upstream model key (required with IMPACT_SERVER_TOKENS)",
  }).optional(),
  OPENAI_BASE_URL: variable(z.string(), {
    part: "router, bot",
    description: "any OpenAI-compatible server (default OpenAI)",
  }).optional(),
  // No schema default: unset, the bot's runs fall back to the repository config's model.
  IMPACT_MODEL: variable(z.string(), {
    part: "router, bot",
    description: "the model (the bot's runs: else the repository config's model)",
    defaultText: DEFAULT_MODEL,
  }).optional(),
  IMPACT_ROUTER_MODELS: variable(list(), {
    part: "router",
    description:
      "the models a turn may ask for, separated by commas (default: IMPACT_MODEL only); a turn naming another gets 400",
  }).optional(),
  IMPACT_ROUTER_MAX_TOKENS: variable(count().default(DEFAULT_ROUTER_MAX_TOKENS), {
    part: "router",
    description: "completion tokens asked of the upstream per turn, whatever the client sends",
  }),
  IMPACT_ROUTER_TOKENS_PER_DAY: variable(count().default(DEFAULT_ROUTER_TOKENS_PER_DAY), {
    part: "router",
    description: "model tokens (prompt and completion) each bearer token may use per 24 hours",
  }),
  IMPACT_RATE_LIMIT: variable(positiveNumber().default(120), {
    part: "router",
    description: "turns per minute per token (bursts up to the same number)",
  }),
  IMPACT_METRICS_TOKEN: variable(
    z.string().refine((token) => token.length >= MIN_TOKEN_LENGTH, {
      message: `needs at least ${MIN_TOKEN_LENGTH} characters (make one with: openssl rand -hex 24)`,
    }),
    {
      part: "server",
      description:
        'when set, GET /metrics wants the header "Authorization: Bearer <this token>" (else it answers anyone)',
    },
  ).optional(),
  GITHUB_WEBHOOK_SECRET: variable(z.string(), {
    part: "bot",
    description: "the webhook secret; turns the bot on",
  }).optional(),
  GITHUB_TOKEN: variable(z.string(), {
    part: "bot",
    description:
      "token mode: one token for every job (clones over https, checks the head, posts the comment)",
  }).optional(),
  GITHUB_APP_ID: variable(
    parsed((text) => (/^\d+$/.test(text) ? text : undefined), "must be the App's numeric id"),
    { part: "bot", description: "App mode (wins over GITHUB_TOKEN): the App's numeric id" },
  ).optional(),
  GITHUB_APP_PRIVATE_KEY: variable(z.string(), {
    part: "bot",
    description: "App mode: the App's PEM private key (\\n escapes allowed) ...",
  }).optional(),
  GITHUB_APP_PRIVATE_KEY_FILE: variable(z.string(), {
    part: "bot",
    description: "... or the path of the .pem file (read for each token, so it can be rotated in place)",
  }).optional(),
  GITHUB_API_URL: variable(z.string().default("https://api.github.com"), {
    part: "bot",
    description: "REST API root (GitHub Enterprise: https://HOST/api/v3)",
  }),
  IMPACT_GITHUB_THROTTLE: variable(
    parsed((text) => (text === "on" || text === "off" ? text : undefined), 'must be "on" or "off"').default(
      "on",
    ),
    {
      part: "bot",
      description: "off: no client-side spacing of GitHub writes (an API without rate limits)",
    },
  ),
  IMPACT_ROUTER_URL: variable(z.string(), {
    part: "bot",
    description: "the bot's runs use this router instead of OPENAI_API_KEY (with IMPACT_ROUTER_TOKEN)",
  }).optional(),
  IMPACT_ROUTER_TOKEN: variable(z.string(), {
    part: "bot",
    description: "the bearer token for IMPACT_ROUTER_URL",
  }).optional(),
  IMPACT_BOT_CONCURRENCY: variable(count().default(1), {
    part: "bot",
    description: "jobs this instance runs at once",
  }),
  IMPACT_BOT_TIMEOUT_MS: variable(positiveNumber().default(15 * 60 * 1000), {
    part: "bot",
    description: "time limit of one job, clone to comment",
    defaultText: "15 minutes",
  }),
  IMPACT_BOT_MAX_PENDING: variable(count().default(DEFAULT_BOT_MAX_PENDING), {
    part: "bot",
    description: "jobs waiting at most, all repositories together",
  }),
  IMPACT_BOT_MAX_PENDING_PER_REPOSITORY: variable(count().default(DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY), {
    part: "bot",
    description: "jobs one repository may have waiting",
  }),
  IMPACT_DRAIN_TIMEOUT_MS: variable(positiveNumber().default(DEFAULT_DRAIN_TIMEOUT_MS), {
    part: "bot",
    description: "on SIGTERM, how long running jobs get to finish",
    defaultText: "25 s",
  }),
  IMPACT_JOB_LEASE_MS: variable(positiveNumber().default(DEFAULT_JOB_LEASE_MS), {
    part: "bot",
    description:
      "with Postgres: a running job whose instance has not renewed its claim for this long is run again elsewhere",
    defaultText: "60 s",
  }),
  IMPACT_WEBHOOK_CONCURRENT_BODIES: variable(count().default(WEBHOOK_CONCURRENT_BODIES), {
    part: "bot",
    description: "webhook bodies received at once before their signature is known; more get 503",
  }),
  IMPACT_DATA_DIR: variable(z.string().default(".impact-server"), {
    part: "bot",
    description:
      "the server's own state (the state database state.sqlite), relative to its working directory",
  }),
  DATABASE_URL: variable(z.string(), {
    part: "bot",
    description:
      "postgres://user:password@host:5432/db: the state in Postgres instead, shared by several instances",
  }).optional(),
  IMPACT_RESULT_CACHE_BYTES_PER_REPOSITORY: variable(
    count().default(DEFAULT_RESULT_CACHE_BYTES_PER_REPOSITORY),
    {
      part: "bot",
      description:
        "bytes of cached article results the state keeps per repository, least recently used out first; a single result over 2 MiB is not kept",
      defaultText: "16 MiB",
    },
  ),
  IMPACT_STATE_KEY: variable(z.string().min(32, "IMPACT_STATE_KEY takes at least 32 characters"), {
    part: "bot",
    description:
      "the secret each job's impact run seals its result cache entries with (without it, a key under the user's cache folder); give instances sharing a DATABASE_URL the same one",
  }).optional(),
  PORT: variable(port(), { part: "server", description: "the port when --port is not given" }).optional(),
});

export type ServeEnv = z.output<typeof ServeEnvSchema>;
export type ServeEnvName = keyof typeof ServeEnvSchema.shape;

/**
 * The environment parsed by ServeEnvSchema; an empty (or blank) variable counts as unset.
 * A bad value is a UsageError naming the variable and what to give instead.
 */
export function parseServeEnv(env: Record<string, string | undefined>): ServeEnv {
  const present: Record<string, string> = {};
  for (const name of Object.keys(ServeEnvSchema.shape)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") present[name] = value;
  }
  const result = ServeEnvSchema.safeParse(present);
  if (!result.success) {
    throw new UsageError(describeFirstIssue(result.error.issues), { code: "config", cause: result.error });
  }
  return result.data;
}

/** `--port` checked as PORT is: a number from 0 to 65535. */
export function parsePort(text: string, source: string): number {
  const result = port().safeParse(text);
  if (!result.success)
    throw new UsageError(`${source} ${result.error.issues[0]?.message ?? "is not a port"}`);
  return result.data;
}

/** One row per variable of ServeEnvSchema: name, part, help text and default as shown. */
function serveEnvTable(): Array<{
  name: ServeEnvName;
  part: Part;
  description: string;
  default: string | undefined;
}> {
  return Object.entries(ServeEnvSchema.shape).map(([name, schema]) => {
    const meta = (schema.meta() ?? unwrap(schema).meta()) as VariableMeta;
    const fallback = meta.defaultText ?? defaultOf(schema);
    return {
      name: name as ServeEnvName,
      part: meta.part,
      description: meta.description,
      default: fallback,
    };
  });
}

function unwrap(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
}

function defaultOf(schema: z.ZodType): string | undefined {
  if (!(schema instanceof z.ZodDefault)) return undefined;
  const value = (schema.def as { defaultValue: unknown }).defaultValue;
  return typeof value === "number" ? value.toLocaleString("en-US") : String(value);
}

/** The environment table as `impact serve --help` prints it. */
export function serveEnvHelp(): string {
  const rows = serveEnvTable();
  const width = Math.max(...rows.map((row) => row.name.length));
  const partWidth = Math.max(...rows.map((row) => row.part.length));
  const lines = rows.map(
    (row) =>
      `  ${row.name.padEnd(width)}  ${row.part.padEnd(partWidth)}  ${row.description}${row.default === undefined ? "" : ` (default ${row.default})`}`,
  );
  return ["Environment (an empty variable counts as unset):", ...lines].join("\n");
}

import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { z } from "zod";
import { contentHash } from "../../shared/hash.js";
import { VALE_FINDINGS_SHOWN, VALE_OUTPUT_BYTES, VALE_TIMEOUT_MS } from "../../shared/limits.js";
import { printable } from "../../shared/render/escape.js";

/**
 * The Vale after-edit check: when the repository has a `.vale.ini` and `vale` is on the
 * PATH, the edited article is linted after each successful edit_article batch, and Vale's
 * findings on the lines the batch wrote are appended to the tool result. It reports and
 * never refuses: the batch is applied, and the model decides whether a finding applies
 * (Vale's rules are advice, often with false positives on code names). When `vale` is
 * missing or fails, the check is skipped for the rest of the run with one warning.
 */
const VALE_CONFIG = ".vale.ini";

/** One alert of `vale --output=JSON` (its other fields are ignored). */
const ValeAlertSchema = z.looseObject({
  Check: z.string(),
  Message: z.string(),
  Line: z.number().int(),
  Severity: z.string(),
});
/** `vale --output=JSON`: alerts per file name (stdin input is named `stdin.<ext>`). */
const ValeOutputSchema = z.record(z.string(), z.array(ValeAlertSchema));

export interface ValeFinding {
  line: number;
  check: string;
  message: string;
  severity: string;
}

/** The alerts of Vale's JSON report, in line order; undefined when it is not that format. */
export function parseValeOutput(stdout: string): ValeFinding[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(stdout.trim() === "" ? "{}" : stdout);
  } catch {
    return undefined;
  }
  const parsed = ValeOutputSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return Object.values(parsed.data)
    .flat()
    .map((alert) => ({
      line: alert.Line,
      check: alert.Check,
      message: alert.Message,
      severity: alert.Severity,
    }))
    .sort((left, right) => left.line - right.line);
}

/** The note appended to the edit_article result for the findings on the edited lines ("" for none). */
export function valeNote(
  findings: readonly ValeFinding[],
  edited: readonly { startLine: number; endLine: number }[],
): string {
  const onEdited = findings.filter((finding) =>
    edited.some((range) => finding.line >= range.startLine && finding.line <= range.endLine),
  );
  if (onEdited.length === 0) return "";
  const shown = onEdited
    .slice(0, VALE_FINDINGS_SHOWN)
    .map(
      (finding) =>
        `- line ${finding.line}: ${finding.severity} ${finding.check}: ${printable(finding.message)}`,
    );
  if (onEdited.length > VALE_FINDINGS_SHOWN)
    shown.push(`- and ${onEdited.length - VALE_FINDINGS_SHOWN} more`);
  return `\nNote: the edits were applied; the project's Vale style check (${VALE_CONFIG}) reports on the lines you wrote:\n${shown.join("\n")}\nIf a finding applies, fix it with another edit_article call; if it does not (a code name, a quoted message), leave it.`;
}

/** Runs `vale` on an article's text for one run; shared by every article's loop. */
export class ValeCheck {
  readonly #root: string;
  readonly #env: Record<string, string | undefined>;
  readonly #warn: (message: string) => void;
  #disabled = false;

  /** For the result cache key: the check and its configuration's hash (another `.vale.ini`, another answer). */
  readonly key: string;

  constructor(options: {
    root: string;
    env: Record<string, string | undefined>;
    warn: (message: string) => void;
    /** The `.vale.ini` text, for `key`. */
    config?: string;
  }) {
    this.key = `vale:${contentHash(options.config ?? "")}`;
    this.#root = options.root;
    this.#env = options.env;
    this.#warn = options.warn;
  }

  /** A check for the repository at `root` when it has a `.vale.ini`; undefined otherwise. */
  static forRepository(options: ConstructorParameters<typeof ValeCheck>[0]): ValeCheck | undefined {
    const path = join(options.root, VALE_CONFIG);
    try {
      if (!statSync(path).isFile()) return undefined;
      return new ValeCheck({ ...options, config: readFileSync(path, "utf8") });
    } catch {
      return undefined;
    }
  }

  /** The note on `content`'s edited lines, or "" (no finding, or the check skipped). */
  async check(
    path: string,
    content: string,
    edited: readonly { startLine: number; endLine: number }[],
    signal: AbortSignal,
  ): Promise<string> {
    if (this.#disabled) return "";
    const outcome = await this.#run(extname(path) || ".md", content, signal);
    if (outcome.ok) return valeNote(outcome.findings, edited);
    this.#disabled = true;
    if (!signal.aborted) this.#warn(`${outcome.why}; the ${VALE_CONFIG} style check is skipped for this run`);
    return "";
  }

  #run(
    ext: string,
    content: string,
    signal: AbortSignal,
  ): Promise<{ ok: true; findings: ValeFinding[] } | { ok: false; why: string }> {
    return new Promise((resolve) => {
      // The text goes in on stdin (the draft is not on disk); --ext picks the format.
      const child = spawn(
        "vale",
        [`--config=${join(this.#root, VALE_CONFIG)}`, "--output=JSON", "--no-exit", `--ext=${ext}`],
        {
          cwd: this.#root,
          env: this.#env,
          stdio: ["pipe", "pipe", "pipe"],
          signal,
          timeout: VALE_TIMEOUT_MS,
        },
      );
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = "";
      let tooLong = false;
      child.stdout.on("data", (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > VALE_OUTPUT_BYTES) {
          tooLong = true;
          child.kill();
        } else out.push(chunk);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        if (err.length < 2000) err += chunk.toString("utf8");
      });
      child.stdin.on("error", () => undefined);
      child.stdin.end(content);
      child.on("error", (error: NodeJS.ErrnoException) => {
        resolve({
          ok: false,
          why:
            error.code === "ENOENT"
              ? `${VALE_CONFIG} is present but vale is not on the PATH (install it from https://vale.sh)`
              : `vale could not run (${error.message})`,
        });
      });
      child.on("close", (code, killedBy) => {
        if (tooLong) return resolve({ ok: false, why: `vale wrote more than ${VALE_OUTPUT_BYTES} bytes` });
        if (killedBy)
          return resolve({
            ok: false,
            why: `vale was stopped (${killedBy}; it may have run past ${VALE_TIMEOUT_MS} ms)`,
          });
        const findings = parseValeOutput(Buffer.concat(out).toString("utf8"));
        if (code !== 0 || findings === undefined) {
          const first = printable(err.trim().split("\n")[0] ?? "");
          return resolve({ ok: false, why: `vale failed (exit ${code}${first ? `: ${first}` : ""})` });
        }
        resolve({ ok: true, findings });
      });
    });
  }
}

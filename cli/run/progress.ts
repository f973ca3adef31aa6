import { printable } from "../../shared/render/escape.js";
import { plural } from "../../shared/render/markdown.js";

/** What the progress line shows; the runner reports into it. */
export interface ProgressSink {
  articleStarted(path: string): void;
  articleFinished(path: string, status: string): void;
  tokens(count: number): void;
  retries(count: number): void;
}

export const NO_PROGRESS: ProgressSink = {
  articleStarted() {},
  articleFinished() {},
  tokens() {},
  retries() {},
};

/** Redraws at most this often, so a fast run does not flood the terminal. */
const REDRAW_INTERVAL_MS = 100;
const CLEAR_LINE = "\r\x1b[2K";

/**
 * One status line on a terminal's stderr, redrawn in place: articles done/total, the
 * articles in flight, tokens and retries. Used only on a TTY without --json/--quiet.
 */
export class TerminalProgress implements ProgressSink {
  readonly #write: (text: string) => void;
  readonly #total: number;
  readonly #columns: number;
  readonly #now: () => number;
  readonly #label: string;
  readonly #active = new Set<string>();
  #done = 0;
  #tokens = 0;
  #retries = 0;
  #lastDraw = Number.NEGATIVE_INFINITY;
  #drawn = false;

  constructor(options: {
    write: (text: string) => void;
    total: number;
    columns?: number;
    now?: () => number;
    /** What the line starts with (default `impact`; the judge's says `impact judge`). */
    label?: string;
  }) {
    this.#label = options.label ?? "impact";
    this.#write = options.write;
    this.#total = options.total;
    this.#columns = Math.max(40, options.columns ?? 100);
    this.#now = options.now ?? Date.now;
  }

  articleStarted(path: string): void {
    this.#active.add(path);
    this.#draw();
  }

  articleFinished(path: string, _status: string): void {
    this.#active.delete(path);
    this.#done += 1;
    this.#draw(true);
  }

  tokens(count: number): void {
    this.#tokens += count;
    this.#draw();
  }

  retries(count: number): void {
    this.#retries += count;
    this.#draw();
  }

  /** The current line, without terminal control characters. */
  line(): string {
    const parts = [
      `${this.#label}: ${this.#done}/${this.#total} articles`,
      `${this.#tokens.toLocaleString("en-US")} tokens`,
    ];
    if (this.#retries > 0) parts.push(plural(this.#retries, "retry", "retries"));
    let text = parts.join(" · ");
    if (this.#active.size > 0) text += ` · ${[...this.#active].map(printable).join(", ")}`;
    return text.length > this.#columns - 1 ? `${text.slice(0, this.#columns - 2)}…` : text;
  }

  /** Clears the line so the next output starts on a clean terminal line. */
  stop(): void {
    if (this.#drawn) this.#write(CLEAR_LINE);
    this.#drawn = false;
  }

  #draw(force = false): void {
    const now = this.#now();
    if (!force && now - this.#lastDraw < REDRAW_INTERVAL_MS) return;
    this.#lastDraw = now;
    this.#drawn = true;
    this.#write(`${CLEAR_LINE}${this.line()}`);
  }
}

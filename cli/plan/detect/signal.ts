import type { ChangedFile } from "../../../shared/changeset.js";
import type { ImpactKind } from "../../../shared/plan.js";
import type { ArticleText } from "./article-text.js";
import type { StaleMark } from "./stale.js";

/** A reason as the rules find it: scored, and grouped so that one sweep counts once. */
export interface Signal {
  article: string;
  kind: ImpactKind;
  source: string;
  detail: string;
  score: number;
  /** Signals of one group count once per article (the strongest); default: each its own. */
  group?: string | undefined;
  /** Set when the signal is stale-statement evidence (what flags an article); without it, relevance only. */
  stale?: StaleMark | undefined;
}

/** Something a rule considered for an article and left out, with why (for `--explain`). */
export interface DroppedSignal {
  article: string;
  kind: ImpactKind;
  source: string;
  detail: string;
  why: string;
}

/** What a rule that reads changed files against the articles' text takes (links, versions, prose, dependencies). */
export interface ArticleSignalInput {
  evidence: readonly ChangedFile[];
  articles: readonly ArticleText[];
  sink: SignalSink;
}

export interface SignalSink {
  add: (signal: Signal) => void;
  /** Records a dropped signal; only called when someone asked to explain that article. */
  drop: (signal: DroppedSignal) => void;
  /** Whether dropped signals for this article are wanted. */
  explains: (article: string) => boolean;
}

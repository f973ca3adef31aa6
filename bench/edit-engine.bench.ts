import { applyEdits } from "../shared/edit/engine.js";
import type { ReplaceEdit } from "../shared/edit/schema.js";

const TARGET_BYTES = 1_000_000;
const HEADINGS = 5_000;
const EDITS = 200;

/**
 * A 1 MB Markdown article with 5,000 headings, prose, lists, tables and code fences;
 * every section names one unique flag, which the edits rename.
 */
export function makeArticle(): string {
  const sections: string[] = [
    "---",
    "title: Bench",
    "attention:",
    "  - op: glob",
    "    pattern: src/**",
    "---",
    "",
  ];
  const perSection = Math.floor(TARGET_BYTES / HEADINGS);
  for (let index = 0; index < HEADINGS; index++) {
    const level = index % 10 === 0 ? "##" : "###";
    const lines = [
      `${level} Section ${index}`,
      "",
      `The command accepts \`--flag-${index}\` to change how section ${index} behaves; see the table below.`,
    ];
    if (index % 7 === 0) lines.push("", "```sh", `impact run --flag-${index}-example`, "```");
    if (index % 5 === 0)
      lines.push("", "| option | meaning |", "| --- | --- |", `| opt${index} | value ${index} |`);
    lines.push("", "- first item", "- second item", "");
    let text = lines.join("\n");
    const filler = "Filler prose that makes the article long enough to matter.\n";
    while (text.length + filler.length <= perSection) text += filler;
    sections.push(text);
  }
  return sections.join("\n");
}

/** 200 replace edits spread evenly over the article, each unique. */
export function makeEdits(): ReplaceEdit[] {
  const edits: ReplaceEdit[] = [];
  const step = Math.floor(HEADINGS / EDITS);
  for (let index = 0; index < HEADINGS && edits.length < EDITS; index += step) {
    edits.push({
      old_string: `\`--flag-${index}\` to change`,
      new_string: `\`--option-${index}\` to change`,
      reason: "the flag was renamed",
    });
  }
  return edits;
}

/** The least any engine must do per edit: find it, check it is unique, splice it in. */
function baseline(content: string, edits: ReplaceEdit[]): string {
  let current = content;
  for (const edit of edits) {
    const at = current.indexOf(edit.old_string);
    if (at === -1 || current.indexOf(edit.old_string, at + 1) !== -1) throw new Error("bad bench edit");
    current = current.slice(0, at) + edit.new_string + current.slice(at + edit.old_string.length);
  }
  return current;
}

export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function measure(runs: number, task: () => unknown): number {
  for (let warmup = 0; warmup < 3; warmup++) task();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    task();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

export async function run(): Promise<void> {
  const article = makeArticle();
  const edits = makeEdits();
  const outcome = applyEdits(article, edits);
  if (!outcome.ok) throw new Error(outcome.error.message);
  if (outcome.content !== baseline(article, edits)) throw new Error("engine and baseline disagree");
  // Interleave the two so load on the machine hits both alike.
  const engineSamples: number[] = [];
  const baselineSamples: number[] = [];
  for (let round = 0; round < 7; round++) {
    engineSamples.push(measure(1, () => applyEdits(article, edits)));
    baselineSamples.push(measure(1, () => baseline(article, edits)));
  }
  const engine = median(engineSamples);
  const base = median(baselineSamples);
  console.log(`article: ${(article.length / 1e6).toFixed(2)} MB, ${edits.length} replace edits in one batch`);
  console.log(`applyEdits: ${engine.toFixed(1)} ms (median)`);
  console.log(`baseline (2 × indexOf + slice per edit): ${base.toFixed(1)} ms (median)`);
  console.log(`ratio: ${(engine / base).toFixed(2)}× (goal ≤ 1.5×)`);

  // A miss near the end of the article: the near-miss search folds the whole text once.
  const missing: ReplaceEdit = {
    old_string: "The command accepts `--flag-4990`  to change how Section 4990 behaves",
    new_string: "x",
    reason: "bench",
  };
  const diagnose = measure(5, () => applyEdits(article, [missing]));
  const scan = measure(5, () => article.indexOf(missing.old_string));
  const message = applyEdits(article, [missing]);
  const found = !message.ok && message.error.message.includes("Closest near-miss");
  console.log(
    `not-found diagnostics with near-miss search (found: ${found}): ${diagnose.toFixed(1)} ms (median)`,
  );
  console.log(
    `one indexOf over the article: ${scan.toFixed(2)} ms; diagnostics cost ${(diagnose / scan).toFixed(0)}× one indexOf (one fold of the whole text, then indexOf)`,
  );
}

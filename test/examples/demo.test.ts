import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
// @ts-expect-error: a plain ESM script without type declarations (it runs without a build step).
import { buildDemoRepository, runDemo } from "../../examples/demo/demo.mjs";
import { RecordingSchema } from "../../shared/model/replay.js";
import { makeTempDir } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";
import {
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from "../helpers/scripted-model-server.js";

const REPLAY_FILE = fileURLToPath(new URL("../../examples/demo/replay.json", import.meta.url));

const REASON_DEFAULT = "The default greeting changed from Hello to Hi in src/greet.ts.";
const REASON_LOUD = "The excited option was renamed to loud in src/greet.ts.";

/** What the scripted model answers for the demo; replay.json is the recording of a run against it. */
const DEMO_SCRIPT: Record<string, ScriptStep[]> = {
  "docs/greeting.md": [
    {
      toolCalls: [
        {
          id: "call_demo_1",
          name: "edit_article",
          arguments: {
            path: "docs/greeting.md",
            edits: [
              {
                old_string: 'greet("Ada"); // "Hello, Ada."',
                new_string: 'greet("Ada"); // "Hi, Ada."',
                reason: REASON_DEFAULT,
                evidence: ["src/greet.ts:11"],
              },
              {
                old_string: "The default greeting is `Hello`.",
                new_string: "The default greeting is `Hi`.",
                reason: REASON_DEFAULT,
                evidence: ["src/greet.ts:11"],
              },
            ],
            done: true,
          },
        },
      ],
    },
  ],
  "docs/options.md": [
    {
      content: "Checking the option names in the code first.",
      toolCalls: [{ id: "call_demo_2", name: "read_file", arguments: { path: "src/greet.ts" } }],
    },
    {
      toolCalls: [
        {
          id: "call_demo_3",
          name: "edit_article",
          arguments: {
            path: "docs/options.md",
            edits: [
              {
                old_string: '| `greeting` | string | `"Hello"` |',
                new_string: '| `greeting` | string | `"Hi"` |',
                reason: REASON_DEFAULT,
                evidence: ["src/greet.ts:11"],
              },
              {
                old_string: "| `excited` | boolean |",
                new_string: "| `loud` | boolean |",
                reason: REASON_LOUD,
                evidence: ["src/greet.ts:6"],
              },
              {
                old_string: 'greet("Ada", { excited: true }); // "Hello, Ada!"',
                new_string: 'greet("Ada", { loud: true }); // "Hi, Ada!"',
                reason: `${REASON_LOUD} ${REASON_DEFAULT}`,
                evidence: ["src/greet.ts:6", "src/greet.ts:11"],
              },
            ],
            done: true,
          },
        },
      ],
    },
  ],
  "docs/install.md": [
    { content: "Nothing to change: installing does not depend on the greeting word or the option names." },
  ],
};

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the demo", () => {
  it("replay.json is a genuine recording of the pipeline against the scripted model (IMPACT_UPDATE_DEMO=1 re-records)", async () => {
    const repo = buildDemoRepository(makeTempDir("impact-demo-"));
    server = await startScriptedModelServer(DEMO_SCRIPT);
    const recordFile = join(makeTempDir(), "replay.json");
    const io = captureIo(repo, {
      OPENAI_API_KEY: "sk-test-not-a-real-key",
      OPENAI_BASE_URL: server.url,
      IMPACT_MODEL: "scripted-demo-model",
    });
    expect(await main(["run", "--record", recordFile], io)).toBe(0);
    expect(server.requests.filter((request) => request.unexpected)).toEqual([]);
    if (process.env.IMPACT_UPDATE_DEMO === "1") copyFileSync(recordFile, REPLAY_FILE);
    // The answers, not their token counts: those follow the prompt's size, which prompt work changes.
    const answers = (file: string) => {
      const recording = RecordingSchema.parse(JSON.parse(readFileSync(file, "utf8")));
      return Object.fromEntries(
        Object.entries(recording.articles).map(([path, calls]) => [
          path,
          calls.map((call) => ({
            message: call.response?.message,
            finishReason: call.response?.finishReason,
          })),
        ]),
      );
    };
    expect(answers(REPLAY_FILE), "examples/demo/replay.json is stale").toEqual(answers(recordFile));
    expect(readFileSync(REPLAY_FILE, "utf8")).not.toContain("sk-test");
  });

  it("runs offline from the recording and prints the report", async () => {
    let out = "";
    let err = "";
    const code = await runDemo({
      main,
      stdout: (text: string) => {
        out += text;
      },
      stderr: (text: string) => {
        err += text;
      },
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(err).toBe("");
    expect(code).toBe(0);
    const normalised = out
      .replace(/\b[0-9a-f]{12}\b/g, "<sha>")
      .replace(/[\d,]+ tokens/g, "N tokens")
      .replace(/\| [\d,]+ \|$/gm, "| N |")
      .replace(/index [0-9a-f]+\.\.[0-9a-f]+/g, "index <blobs>");
    expect(normalised).toMatchInlineSnapshot(`
      "Demo repository: (a temp dir); change: "Default greeting is now Hi; the excited option is now loud"

      updated   docs/options.md (3 edits)
      updated   docs/greeting.md (2 edits)
      unchanged docs/install.md

      2 updated, 1 unchanged, 0 failed; N tokens
      audit: .impact/audit.json
      patch: .impact/impact.patch

      # Impact report

      Change \`<sha>\`..\`<sha>\` · model \`scripted-demo-model\` · patches not applied.

      3 articles: 2 updated, 1 unchanged; N tokens.

      | Article | Status | Edits | Tokens |
      |---|---|---:|---:|
      | \`docs/greeting.md\` | updated | 2 | N |
      | \`docs/options.md\` | updated | 3 | N |
      | \`docs/install.md\` | unchanged | 0 | N |

      ## \`docs/greeting.md\` — updated

      Why it was checked:

      - attention \`src/greet.ts\`: attention file src/greet.ts
      - reference \`src/greet.ts\`: mentions greet (function, body changed)

      Edits:

      1. replace, line 14 (\`docs/greeting.md#1\`): The default greeting changed from Hello to Hi in src/greet.ts.
         Evidence: \`src/greet.ts:11\`
      2. replace, line 17 (\`docs/greeting.md#2\`): The default greeting changed from Hello to Hi in src/greet.ts.
         Evidence: \`src/greet.ts:11\`

      > 2 edits: The default greeting changed from Hello to Hi in src/greet.ts.

      \`\`\`\`diff
      diff --git a/docs/greeting.md b/docs/greeting.md
      --- a/docs/greeting.md
      +++ b/docs/greeting.md
      @@ -11,10 +11,10 @@
       \`\`\`ts
       import { greet } from "greeter";
       
      -greet("Ada"); // "Hello, Ada."
      +greet("Ada"); // "Hi, Ada."
       \`\`\`
       
      -The default greeting is \`Hello\`. Pass \`greeting\` to use another word:
      +The default greeting is \`Hi\`. Pass \`greeting\` to use another word:
       
       \`\`\`ts
       greet("Ada", { greeting: "Welcome" }); // "Welcome, Ada."
      \`\`\`\`

      ## \`docs/options.md\` — updated

      Why it was checked:

      - attention \`src/greet.ts\`: attention file src/greet.ts
      - reference \`src/greet.ts\`: mentions excited (member of GreetOptions, renamed excited → loud)
      - reference \`src/greet.ts\`: describes in prose what the change's comments and strings say (excited, hello)
      - reference \`src/greet.ts\`: mentions greet (function, body changed)

      Edits:

      1. replace, line 13 (\`docs/options.md#1\`): The default greeting changed from Hello to Hi in src/greet.ts.
         Evidence: \`src/greet.ts:11\`
      2. replace, line 14 (\`docs/options.md#2\`): The excited option was renamed to loud in src/greet.ts.
         Evidence: \`src/greet.ts:6\`
      3. replace, line 19 (\`docs/options.md#3\`): The excited option was renamed to loud in src/greet.ts. The default greeting changed from Hello to Hi in src/greet.ts.
         Evidence: \`src/greet.ts:6\`, \`src/greet.ts:11\`

      > 3 edits: The default greeting changed from Hello to Hi in src/greet.ts. The excited option was renamed to loud in src/greet.ts. The excited option was renamed to loud in src/greet.ts. The default greeting changed from Hello to Hi in src/greet.ts.

      \`\`\`\`diff
      diff --git a/docs/options.md b/docs/options.md
      --- a/docs/options.md
      +++ b/docs/options.md
      @@ -10,11 +10,11 @@
       
       | option | type | default | what it does |
       |---|---|---|---|
      -| \`greeting\` | string | \`"Hello"\` | the greeting word |
      -| \`excited\` | boolean | \`false\` | end with \`!\` instead of \`.\` |
      +| \`greeting\` | string | \`"Hi"\` | the greeting word |
      +| \`loud\` | boolean | \`false\` | end with \`!\` instead of \`.\` |
       
       Example:
       
       \`\`\`ts
      -greet("Ada", { excited: true }); // "Hello, Ada!"
      +greet("Ada", { loud: true }); // "Hi, Ada!"
       \`\`\`
      \`\`\`\`

      ## \`docs/install.md\` — unchanged

      Why it was checked:

      - attention \`src/greet.ts\`: attention glob src/\\*\\* matches src/greet.ts

      > Nothing to change: installing does not depend on the greeting word or the option names.
      "
    `);
  });
});

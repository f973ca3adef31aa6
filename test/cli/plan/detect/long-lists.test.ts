import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { flagged, planJson } from "../../../helpers/plan-json.js";

const members = ["certificateAuthority", "privateKey", "certificate", "passphrase", "ciphers", "dhparam"];

const options = (extra: string[]) =>
  [
    "export type TlsOptions = {",
    ...[...members, ...extra].map((name) => `\t${name}?: string;`),
    "};",
    "",
    "export type Options = {",
    "\ttls?: TlsOptions;",
    "\tlegacyAgent?: boolean;",
    "};",
    "",
  ].join("\n");

/** A page with a heading per documented member of TlsOptions. */
const reference = (documented: readonly string[]) =>
  ["# TLS", "", ...documented.flatMap((name) => [`#### \`${name}\``, "", `Sets \`${name}\`.`, ""])].join(
    "\n",
  );

describe("a member added beside a long list of its siblings", { timeout: 120_000 }, () => {
  it("flags the page with a heading per sibling beside a stronger article; a page listing three stays under the bar", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({
        docs: ["docs/**/*.md"],
        mappings: [{ code: "source/options.ts", docs: "docs/options.md" }],
      }),
      "source/options.ts": options([]),
      // The mapped page writes a removed option: the change's strongest article (0.9).
      "docs/options.md": "# Options\n\n- `tls`: see [TLS](tls.md).\n- `legacyAgent`: the old agent.\n",
      "docs/tls.md": reference(members),
      "docs/tls-short.md": reference(members.slice(0, 3)),
    });
    repo.commit({
      "source/options.ts": options(["secureOptions"]).replace("\tlegacyAgent?: boolean;\n", ""),
    });
    const plan = await planJson(repo);
    // Six siblings, each on a heading of its own: the page is the options' reference.
    expect(flagged(plan)).toEqual(["docs/options.md", "docs/tls.md"]);
    const tls = plan.articles.find((article) => article.path === "docs/tls.md");
    expect(tls?.impact[0]).toMatchObject({
      stale: true,
      score: 0.6,
      line: 3,
      detail: expect.stringMatching(
        /^mentions secureOptions \(member of TlsOptions, added\); the article documents certificateAuthority, privateKey, certificate; 6 of them on list lines of the article$/,
      ),
    });
    // Three siblings are a list still, but weak beside the mapped page's removed option.
    expect(plan.weak).toContainEqual({ path: "docs/tls-short.md", score: 0.4 });
  });
});

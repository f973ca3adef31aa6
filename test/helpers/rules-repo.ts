import { gitRepo, type TestRepo } from "./git-repo.js";

export const RULE_README = (name: string) => `# ${name}

Disallow ${name.replace(/-/g, " ")}.

## Options

### \`true\`

The rule is on.
`;

export const RULES_LIST = `# Rules

- [color-no-invalid-hex](../../lib/rules/color-no-invalid-hex/README.md): Disallow invalid hex colors.
- [font-family-no-duplicate-names](../../lib/rules/font-family-no-duplicate-names/README.md): Disallow duplicate font family names.
`;

export const CONFIG = {
  docs: ["docs/**/*.md", "lib/rules/*/README.md"],
  mappings: [
    { code: "lib/rules/:name/index.js", docs: "lib/rules/:name/README.md" },
    { code: "lib/rules/*/index.js", docs: "docs/user-guide/rules.md" },
  ],
};

/** stylelint's layout: one folder per rule with its code and README, and a list of all rules. */
export function rulesRepo(config: object = CONFIG): TestRepo {
  const repo = gitRepo({
    "impact.config.json": JSON.stringify(config),
    "lib/rules/color-no-invalid-hex/index.js": "module.exports = function colorNoInvalidHex() {};\n",
    "lib/rules/color-no-invalid-hex/README.md": RULE_README("color-no-invalid-hex"),
    "lib/rules/font-family-no-duplicate-names/index.js":
      "module.exports = function fontFamilyNoDuplicateNames() {};\n",
    "lib/rules/font-family-no-duplicate-names/README.md": RULE_README("font-family-no-duplicate-names"),
    "docs/user-guide/rules.md": RULES_LIST,
  });
  repo.commit({
    "lib/rules/selector-no-invalid/index.js":
      "// Disallow invalid selectors.\nmodule.exports = function selectorNoInvalid() {};\n",
  });
  return repo;
}

/** The README the change calls for: the new rule's own page. */
export const NEW_PATH = "lib/rules/selector-no-invalid/README.md";

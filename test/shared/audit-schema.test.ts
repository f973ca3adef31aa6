import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AuditSchema } from "../../shared/audit.js";

const SCHEMA_FILE = fileURLToPath(new URL("../../schema/audit.schema.json", import.meta.url));

/** The JSON Schema of the audit as generated from shared/audit.ts. */
function generated(): string {
  const schema = z.toJSONSchema(AuditSchema, { target: "draft-2020-12" });
  return `${JSON.stringify({ ...schema, $id: "https://impact.invalid/schema/audit.schema.json", title: "Impact audit, version 1" }, null, 2)}\n`;
}

describe("schema/audit.schema.json", () => {
  it("is the current JSON Schema of shared/audit.ts (IMPACT_UPDATE_SCHEMA=1 regenerates it)", () => {
    if (process.env.IMPACT_UPDATE_SCHEMA === "1") writeFileSync(SCHEMA_FILE, generated());
    // Compared as data: Biome may lay the committed file out differently.
    expect(JSON.parse(readFileSync(SCHEMA_FILE, "utf8")), "schema/audit.schema.json is stale").toEqual(
      JSON.parse(generated()),
    );
  });
});

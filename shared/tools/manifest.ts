import { z } from "zod";
import type { ToolDefinition } from "../model/types.js";
import { createArticleSpec } from "./create-article.js";
import { editArticleSpec } from "./edit-article.js";
import { listFilesSpec } from "./list-files.js";
import { outlineArticleSpec } from "./outline-article.js";
import { readFileSpec } from "./read-file.js";
import { searchRepoSpec } from "./search-repo.js";
import type { ToolSpec } from "./spec.js";

/**
 * Every tool, in manifest order; create_article is offered only with `allowCreate`. The
 * one list of tools: `ToolName` comes from it, and the code table in cli/run/tools must
 * have an entry for each name (a spec without code does not compile).
 */
const TOOL_SPECS = [
  readFileSpec,
  outlineArticleSpec,
  searchRepoSpec,
  listFilesSpec,
  editArticleSpec,
  createArticleSpec,
] as const;

export type AnyToolSpec = (typeof TOOL_SPECS)[number];
export type ToolName = AnyToolSpec["name"];
/** The spec of the tool named `Name`. */
export type ToolSpecNamed<Name extends ToolName> = Extract<AnyToolSpec, { name: Name }>;

const TOOL_NAMES: ReadonlySet<string> = new Set(TOOL_SPECS.map((spec) => spec.name));

export function isToolName(name: string): name is ToolName {
  return TOOL_NAMES.has(name);
}

/** The tool specs offered for these options, in manifest order. */
export function toolSpecsFor(options: { allowCreate: boolean }): AnyToolSpec[] {
  return TOOL_SPECS.filter((spec) => options.allowCreate || spec.name !== createArticleSpec.name);
}

/** JSON Schema of a tool's arguments, as the model sees it (no `$schema` key). */
export function toolParametersJsonSchema(spec: ToolSpec): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(spec.parameters, {
    io: "input",
    override: ({ jsonSchema }) => {
      // z.int() bounds every integer by the safe-integer range: noise for the model.
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.type === "integer" && jsonSchema.exclusiveMinimum === 0) {
        delete jsonSchema.exclusiveMinimum;
        jsonSchema.minimum = 1;
      }
    },
  }) as Record<string, unknown>;
  return schema;
}

/**
 * The tool manifest sent to the model. Identical options give byte-identical output, so
 * providers can cache the prompt prefix.
 */
export function buildToolManifest(options: { allowCreate: boolean }): ToolDefinition[] {
  // Built once per option set: every article loop (and the router, every turn) asks for it.
  const cached = manifests.get(options.allowCreate);
  if (cached) return cached;
  const manifest = deepFreeze(buildManifest(options));
  manifests.set(options.allowCreate, manifest);
  return manifest;
}

const manifests = new Map<boolean, ToolDefinition[]>();

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

function buildManifest(options: { allowCreate: boolean }): ToolDefinition[] {
  return toolSpecsFor(options).map((spec) => ({
    type: "function",
    function: {
      name: spec.name,
      description: spec.description,
      parameters: toolParametersJsonSchema(spec),
    },
  }));
}

import type { z } from "zod";

/**
 * One tool as the model sees it: name, description and argument schema. Declared once in
 * `shared/` so the backend can serve the same manifest; the code that runs it is in `cli/run/tools/`.
 */
export interface ToolSpec<Schema extends z.ZodType = z.ZodType, Name extends string = string> {
  readonly name: Name;
  readonly description: string;
  readonly parameters: Schema;
  /** Read-only tools of one turn may run in parallel; the others run one at a time. */
  readonly readOnly: boolean;
}

export function defineToolSpec<Schema extends z.ZodType, const Name extends string>(
  spec: ToolSpec<Schema, Name>,
): ToolSpec<Schema, Name> {
  return spec;
}

/** The arguments a tool's code receives: what its schema parses the model's JSON into. */
export type ToolArgs<Spec extends ToolSpec> = z.infer<Spec["parameters"]>;

/** A repository-relative POSIX path, as every tool takes it. */
export const PATH_DESCRIPTION = 'Repository-relative POSIX path, such as "docs/guide.md".';

import { describe, expect, it } from "vitest";
import { omitUndefined } from "../../shared/omit-undefined.js";

describe("omitUndefined", () => {
  it("drops only undefined-valued keys and keeps the order of the rest", () => {
    const value = { kind: "reference", line: undefined, stale: false, score: 0, hunk: null, detail: "" };
    const result = omitUndefined(value);
    expect(Object.keys(result)).toEqual(["kind", "stale", "score", "hunk", "detail"]);
    expect("line" in result).toBe(false);
    expect(result).toStrictEqual({ kind: "reference", stale: false, score: 0, hunk: null, detail: "" });
  });

  it("returns a copy, leaving the value it was given alone", () => {
    const value = { a: 1, b: undefined };
    const result = omitUndefined(value);
    expect(result).not.toBe(value);
    expect(Object.keys(value)).toEqual(["a", "b"]);
  });
});

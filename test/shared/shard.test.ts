import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseShard, selectShard, shardOf } from "../../shared/shard.js";

describe("selectShard", () => {
  it("splits paths into disjoint shards that cover them all", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 })),
        fc.integer({ min: 1, max: 7 }),
        (paths, count) => {
          const shards = Array.from({ length: count }, (_, i) => selectShard(paths, i + 1, count));
          expect(shards.flat().sort()).toEqual([...paths].sort());
          expect(new Set(shards.flat()).size).toBe(paths.length);
        },
      ),
    );
  });

  it("is stable: the same path lands in the same shard whatever else is in the list", () => {
    const paths = ["docs/a.md", "docs/b.md", "docs/c.md", "README.md", "docs/guide/run.md"];
    const alone = paths.map((path) => shardOf(path, 3));
    expect(paths.map((path) => selectShard([path, "x.md"], shardOf(path, 3), 3).includes(path))).toEqual(
      paths.map(() => true),
    );
    expect(alone).toMatchInlineSnapshot(`
      [
        1,
        2,
        2,
        1,
        2,
      ]
    `);
  });

  it("spreads many paths roughly evenly", () => {
    const paths = Array.from({ length: 4000 }, (_, i) => `docs/article-${i}.md`);
    for (let index = 1; index <= 4; index++) {
      const size = selectShard(paths, index, 4).length;
      expect(size).toBeGreaterThan(850);
      expect(size).toBeLessThan(1150);
    }
  });
});

describe("parseShard", () => {
  it("accepts I/N with 1 ≤ I ≤ N and refuses the rest", () => {
    expect(parseShard("2/3")).toEqual({ index: 2, count: 3 });
    expect(parseShard("1/1")).toEqual({ index: 1, count: 1 });
    expect(["0/3", "4/3", "1/0", "a/b", "1", "1/2/3", "-1/2"].map(parseShard)).toEqual(Array(7).fill(null));
  });
});

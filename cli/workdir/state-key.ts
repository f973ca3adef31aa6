import { randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** The environment variable that gives the state key directly (CI, where the cache folder is restored). */
export const STATE_KEY_ENV = "IMPACT_STATE_KEY";
/** The fewest characters an IMPACT_STATE_KEY may have. */
const MIN_ENV_KEY_LENGTH = 32;
const KEY_FILE_TEXT = /^[0-9a-f]{64}\n?$/;

export type StateKey = { secret: Buffer; source: string } | { problem: string };

/**
 * Where the per-machine state key lives: the user's cache folder (`$XDG_CACHE_HOME/impact`,
 * else `~/.cache/impact`), outside every repository.
 */
export function stateKeyPath(env: Record<string, string | undefined>): string {
  const cacheHome = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(cacheHome, "impact", "state-key");
}

/**
 * The secret that signs Impact's state (cache entries): IMPACT_STATE_KEY when set, else the
 * key file, created on first use (32 random bytes, mode 0600, made whole before it gets its
 * name, so a concurrent run reads either no key or the whole key). A problem (a home that
 * cannot be written, a file that is not a key) is returned, never thrown: the run then goes
 * on without caches.
 */
export async function loadStateKey(env: Record<string, string | undefined>): Promise<StateKey> {
  const given = env[STATE_KEY_ENV];
  if (given) {
    if (given.length < MIN_ENV_KEY_LENGTH) {
      return {
        problem: `${STATE_KEY_ENV} is shorter than ${MIN_ENV_KEY_LENGTH} characters; set it to a long random secret (openssl rand -hex 32)`,
      };
    }
    return { secret: Buffer.from(given, "utf8"), source: STATE_KEY_ENV };
  }
  const path = stateKeyPath(env);
  try {
    return { secret: await readKeyFile(path), source: path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return { problem: keyProblem(path, error) };
  }
  try {
    await createKeyFile(path);
    return { secret: await readKeyFile(path), source: path };
  } catch (error) {
    return { problem: keyProblem(path, error) };
  }
}

async function readKeyFile(path: string): Promise<Buffer> {
  const text = await readFile(path, "latin1");
  if (!KEY_FILE_TEXT.test(text)) throw new Error("not a key Impact wrote (64 hex digits); delete it");
  return Buffer.from(text.trim(), "hex");
}

async function createKeyFile(path: string): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temp = join(directory, `.state-key.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString("hex")}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // link() never replaces: when another run made the key first, both use that one.
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
}

function keyProblem(path: string, error: unknown): string {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return `cannot use the state key ${path} (${reason}); set ${STATE_KEY_ENV} or XDG_CACHE_HOME to a writable place`;
}

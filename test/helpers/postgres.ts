import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export interface TestPostgres {
  /** A URL for a fresh, empty database of its own. */
  createDatabase(name: string): Promise<string>;
  stop(): void;
}

/**
 * A real Postgres server in a temp folder on a free port of 127.0.0.1, from the machine's
 * Postgres binaries (Debian's `postgresql` package), trusting local connections. Postgres
 * refuses to run as root, so as root the server runs as the `postgres` user. Resolves to a
 * reason instead when the binaries (or that user) are missing: the caller skips loudly.
 */
export async function startPostgres(): Promise<TestPostgres | { unavailable: string }> {
  const bin = postgresBin();
  if (!bin) {
    return {
      unavailable:
        "no Postgres binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin; install Debian's postgresql package",
    };
  }
  const asUser: string[] = [];
  let owner: { uid: number; gid: number } | undefined;
  if (process.getuid?.() === 0) {
    const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (id.status !== 0)
      return { unavailable: "running as root and there is no postgres user to run the server as" };
    owner = { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
    asUser.push("runuser", "-u", "postgres", "--");
  }
  const dir = mkdtempSync(join(tmpdir(), "impact-pg-"));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, "data");
  const command = (tool: string, args: string[]) => {
    const [program, ...rest] = [...asUser, join(bin, tool), ...args];
    execFileSync(program!, rest, { stdio: "pipe", cwd: dir });
  };
  const port = await freePort();
  try {
    command("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
    command("pg_ctl", [
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
      "-w",
      "start",
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    return { unavailable: `Postgres did not start: ${stderr.trim().split("\n").slice(-3).join(" ")}` };
  }
  const root = `postgres://postgres@127.0.0.1:${port}`;
  return {
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: `${root}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `${root}/${name}`;
    },
    stop() {
      try {
        command("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function postgresBin(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  for (const version of readdirSync(root).sort().reverse()) {
    const dir = join(root, version, "bin");
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

// pg.test.mjs - `aflame-render serve --db`: two servers, one PostgreSQL
// catalogue, one data folder.  A real PostgreSQL from Debian's packages is
// made for the test (initdb into a temporary folder, a server on a free
// loopback port, its socket in that folder), run as `nobody` when the test
// runs as root (initdb refuses root; nothing of the clone is read by it).
// Without PostgreSQL the test says why and exits 77, which ctest counts as
// skipped.  Everything it starts is stopped, also when it fails.
// Run as `node pg.test.mjs` (not --test): the exit code is the verdict.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync,
         chownSync } from "node:fs";
import { tmpdir } from "node:os";
import net from "node:net";
import { cli, samples, freshDir, start, get, files, folded } from "./server.mjs";

const json = { Accept: "application/json" };
const SECRET = "s3cret-never-logged";

// ---------------------------------------------------------------- PostgreSQL

function pgBin() {
  const root = process.env.AF_PG_ROOT || "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v))
    .sort((a, b) => (a === "15" ? -1 : b === "15" ? 1 : Number(b) - Number(a)));
  for (const v of versions) {
    const bin = `${root}/${v}/bin`;
    if (["initdb", "postgres", "psql"].every((p) => existsSync(`${bin}/${p}`))) return bin;
  }
  return null;
}

function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.on("error", rej);
    s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => res(p)); });
  });
}

const pg = { bin: pgBin(), dir: null, port: 0, proc: null, exited: null, asUser: [] };
const servers = new Set();

/** Runs a PostgreSQL program as the user the cluster belongs to. */
function pgCmd(prog, args) {
  return pg.asUser.length ? ["setpriv", [...pg.asUser, "--", `${pg.bin}/${prog}`, ...args]]
                          : [`${pg.bin}/${prog}`, args];
}

function psql(sql) {
  const r = spawnSync(`${pg.bin}/psql`, ["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", pg.dir,
                                         "-p", String(pg.port), "-U", "aflame", "-d", "aflame_test",
                                         "-c", sql], { encoding: "utf8", timeout: 30000 });
  if (r.status !== 0) throw new Error(`psql ${sql}: ${r.stderr}`);
  return r.stdout.trim();
}

async function pgStart() {
  const [cmd, args] = pgCmd("postgres", ["-D", `${pg.dir}/data`, "-p", String(pg.port), "-k", pg.dir,
                                         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]);
  pg.proc = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], cwd: pg.dir });
  let log = "";
  pg.proc.stderr.setEncoding("utf8");
  pg.proc.stderr.on("data", (d) => { log += d; });
  pg.exited = new Promise((res) => pg.proc.on("exit", (code) => { pg.proc = null; res(code); }));
  for (let i = 0; i < 150; i++) {
    if (!pg.proc) return `postgres exited: ${log.trim().split("\n").pop()}`;
    const r = spawnSync(`${pg.bin}/psql`, ["-X", "-h", pg.dir, "-p", String(pg.port), "-U", "aflame",
                                           "-d", "postgres", "-c", "SELECT 1"],
                        { encoding: "utf8", timeout: 10000 });
    if (r.status === 0) return null;
    await new Promise((res) => setTimeout(res, 200));
  }
  return `postgres did not answer within 30 s: ${log.trim().split("\n").pop()}`;
}

async function pgStop() {
  if (!pg.proc) return;
  pg.proc.kill("SIGINT"); // fast shutdown
  const t = setTimeout(() => pg.proc && pg.proc.kill("SIGQUIT"), 15000);
  await pg.exited;
  clearTimeout(t);
}

/** A cluster of its own; null, or why PostgreSQL cannot be had. */
async function pgSetUp() {
  if (!pg.bin) return "PostgreSQL is not installed (Debian: apt-get install postgresql)";
  pg.dir = mkdtempSync(`${tmpdir()}/aflame-pg-`);
  if (process.getuid() === 0) {
    const id = spawnSync("id", ["-u", "nobody"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "nobody"], { encoding: "utf8" });
    if (id.status !== 0) return "running as root and there is no user nobody to run PostgreSQL";
    chownSync(pg.dir, Number(id.stdout), Number(gid.stdout));
    pg.asUser = ["--reuid", id.stdout.trim(), "--regid", gid.stdout.trim(), "--clear-groups"];
  }
  writeFileSync(`${pg.dir}/pw`, `${SECRET}\n`);
  if (pg.asUser.length) chownSync(`${pg.dir}/pw`, Number(pg.asUser[1]), Number(pg.asUser[3]));
  const [cmd, args] = pgCmd("initdb", ["-D", `${pg.dir}/data`, "-U", "aflame", "-E", "UTF8",
                                       "--no-locale", "--auth-local=trust",
                                       "--auth-host=scram-sha-256", `--pwfile=${pg.dir}/pw`]);
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 120000, cwd: pg.dir });
  if (r.status !== 0) return `initdb failed: ${(r.stderr || r.error || "").toString().trim()}`;
  pg.port = await freePort();
  const why = await pgStart();
  if (why) return why;
  const c = spawnSync(`${pg.bin}/psql`, ["-X", "-h", pg.dir, "-p", String(pg.port), "-U", "aflame",
                                         "-d", "postgres", "-c", "CREATE DATABASE aflame_test"],
                      { encoding: "utf8", timeout: 30000 });
  if (c.status !== 0) return `cannot make the database: ${c.stderr.trim()}`;
  return null;
}

function tearDownSync() {
  for (const s of servers) try { s.proc.kill("SIGKILL"); } catch { /* gone */ }
  if (pg.proc) try { pg.proc.kill("SIGQUIT"); } catch { /* gone */ }
  if (pg.dir) rmSync(pg.dir, { recursive: true, force: true });
}
process.on("exit", tearDownSync);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));

const why = await pgSetUp().catch((e) => `cannot set PostgreSQL up: ${e.message}`);
if (why) {
  console.log(`skipped: ${why}`);
  tearDownSync();
  process.exit(77);
}

after(async () => {
  for (const s of servers) await s.stop();
  await pgStop();
});

// ------------------------------------------------------------------- servers

const url = () => `postgresql://aflame:${SECRET}@127.0.0.1:${pg.port}/aflame_test`;
const data = freshDir("serve-pg");

async function serve(extra = []) {
  const s = await start(data, ["--db", url(), ...extra]);
  servers.add(s);
  const stop = s.stop, kill9 = s.kill9;
  s.stop = async () => { servers.delete(s); return stop(); };
  s.kill9 = async () => { servers.delete(s); return kill9(); };
  return s;
}

async function upload(s, name, body) {
  const r = await fetch(`${s.url}/upload?name=${name}`, { method: "POST", body, headers: json });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  return JSON.parse(text);
}

async function bytes(s, path) {
  const r = await fetch(s.url + path);
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
}

/** Every entry under data/tmp: each running server's folder and its lock. */
const tmpEntries = () => readdirSync(`${data}/tmp`).sort();

let a, b;

test("two servers start at once on one catalogue; the password is never logged", { timeout: 180000 }, async () => {
  // both make the table and both store the bundled sample at once
  [a, b] = await Promise.all([serve(), serve()]);
  for (const s of [a, b]) {
    assert.ok(!s.log().includes(SECRET), s.log());
    assert.match(s.log(), /catalogue in PostgreSQL \(.*password=\*\*\*/);
    assert.doesNotMatch(s.log(), /NOTICE/, "the server's notices are not logged");
  }
  assert.equal(psql("SELECT count(*) FROM uploads"), "1", "the sample, once");
  assert.equal(tmpEntries().length, 4, tmpEntries().join(" "));
});

test("an upload to one server is served by the other, byte for byte", { timeout: 180000 }, async () => {
  const trace = readFileSync(`${samples}/app-after.trace`);
  const j = await upload(a, "app-after.trace", trace);
  const hash = /\/trace\/([0-9a-f]{64})\//.exec(j.url)[1];
  const set = files(`${data}/traces/${hash}/set`);
  assert.ok(set.includes("index.html") && set.some((f) => f.endsWith(".svg")), set.join(" "));
  for (const path of [j.url, ...set.map((f) => j.url + f), `${j.url}report`, `${j.url}original`]) {
    const [x, y] = await Promise.all([bytes(a, path), bytes(b, path)]);
    assert.equal(y.status, 200, path);
    assert.equal(x.status, 200, path);
    assert.ok(x.body.equals(y.body), `${path}: the two servers differ`);
  }
  // a view drawn by one is found by the other
  const v = await fetch(`${b.url}${j.url}?clock=cpu`, { redirect: "manual" });
  assert.equal(v.status, 303);
  const w = await fetch(`${a.url}${j.url}?clock=cpu`, { redirect: "manual" });
  assert.equal(w.headers.get("location"), v.headers.get("location"));
  assert.equal(psql(`SELECT name FROM uploads WHERE hash='${hash}'`), "app-after.trace");
  // the command's warnings, kept as bytes, shown by the other server
  const warned = await upload(b, "w.folded", Buffer.from("a;b 3\n\xff\xfe;no count\nmain;x 2\n", "latin1"));
  const page = await bytes(a, warned.url);
  assert.equal(page.status, 200);
  assert.match(page.body.toString(), /ignored 1 lines that are not (&quot;|")frame;frame COUNT(&quot;|"), the first at byte 6/);
  assert.ok(page.body.equals((await bytes(b, warned.url)).body));
});

test("the same file uploaded to both at once: one row, one folder, one URL", { timeout: 180000 }, async () => {
  const body = folded(4242, 300);
  const [x, y] = await Promise.all([upload(a, "same.folded", body), upload(b, "same.folded", body)]);
  assert.equal(x.url, y.url);
  const hash = /\/trace\/([0-9a-f]{64})\//.exec(x.url)[1];
  assert.equal(psql(`SELECT count(*) FROM uploads WHERE hash='${hash}'`), "1");
  const [p, q] = await Promise.all([bytes(a, `${x.url}all.svg`), bytes(b, `${x.url}all.svg`)]);
  assert.equal(p.status, 200);
  assert.ok(p.body.equals(q.body));
  assert.equal(tmpEntries().length, 4, "nothing left in the working folders' place");
  for (const e of tmpEntries().filter((e) => !e.endsWith(".lock")))
    assert.deepEqual(readdirSync(`${data}/tmp/${e}`), [], `tmp/${e} is empty`);
});

test("kill -9 during an upload: a restart serves every acknowledged upload, nothing half-written", { timeout: 180000 }, async () => {
  const acked = [];
  for (let i = 0; i < 2; i++) acked.push(await upload(a, `k${i}.folded`, folded(500 + i)));
  const before = new Set(tmpEntries());
  const c = net.connect(a.port, "127.0.0.1");
  c.on("error", () => {});
  await new Promise((res) => c.once("connect", res));
  c.write("POST /upload?name=half.folded HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  c.write(folded(999));
  let own = null;
  for (let i = 0; i < 100 && !own; i++) {
    await new Promise((res) => setTimeout(res, 100));
    own = [...before].find((e) => !e.endsWith(".lock") && readdirSync(`${data}/tmp/${e}`).length > 0);
  }
  assert.ok(own, "the upload is under way in a server's working folder");
  await a.kill9();
  c.destroy();
  assert.ok(readdirSync(`${data}/tmp/${own}`).length > 0, "the dead server's half upload is there");
  a = await serve();
  assert.match(a.log(), new RegExp(`removed tmp/${own.replace(/\./g, "\\.")}, left by a server`));
  assert.ok(!existsSync(`${data}/tmp/${own}`), "what was half-written is gone");
  assert.ok(!existsSync(`${data}/tmp/${own}.lock`));
  assert.equal(tmpEntries().length, 4, tmpEntries().join(" "));
  for (const j of acked)
    for (const s of [a, b]) {
      const r = await fetch(s.url + j.url);
      assert.equal(r.status, 200, j.url);
      assert.match(await r.text(), new RegExp(j.name.replace(".", "\\.")));
    }
  assert.equal(Number(psql("SELECT count(*) FROM uploads")), 6);
  assert.equal(readdirSync(`${data}/traces`).length, 6);
});

test("PostgreSQL down: 503 with a message, the servers live on and reconnect", { timeout: 180000 }, async () => {
  const some = psql("SELECT hash FROM uploads ORDER BY hash LIMIT 1");
  await pgStop();
  const r = await get(b.port, `/trace/${some}/`);
  assert.equal(r.status, 503, r.body);
  assert.match(r.body, /the catalogue cannot be reached/);
  const u = await fetch(`${a.url}/upload?name=down.folded`, { method: "POST", body: folded(77),
                                                              headers: json });
  assert.equal(u.status, 503);
  assert.equal(u.headers.get("retry-after"), "5");
  assert.match((await u.json()).error, /the catalogue cannot be reached/);
  assert.match(b.log(), /catalogue \(PostgreSQL, .*password=\*\*\*.*\): (the connection was lost|cannot connect)/);
  const why = await pgStart();
  assert.equal(why, null);
  const again = await get(b.port, `/trace/${some}/`);
  assert.equal(again.status, 200);
  assert.match(b.log(), /the connection was lost, reconnecting[^]*connected again/);
  assert.ok(!b.log().includes(SECRET) && !a.log().includes(SECRET));
  const j = await upload(a, "up.folded", folded(78));
  assert.equal((await fetch(b.url + j.url)).status, 200);
});

test("stopped, the servers leave nothing in tmp/; a --db libpq cannot read is refused", { timeout: 60000 }, async () => {
  for (const s of [a, b]) assert.equal((await s.stop()).code, 0, s.log());
  assert.deepEqual(tmpEntries(), []);
  const r = spawnSync(cli, ["serve", "--data", data, "--db", "host='unterminated"],
                      { encoding: "utf8", timeout: 30000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--db: not a libpq conninfo/);
  const down = spawnSync(cli, ["serve", "--listen", "127.0.0.1:0", "--data", data, "--db",
                               `postgresql://aflame:${SECRET}@127.0.0.1:1/x?connect_timeout=5`],
                         { encoding: "utf8", timeout: 30000 });
  assert.equal(down.status, 1);
  assert.match(down.stderr, /cannot connect/);
  assert.ok(!down.stderr.includes(SECRET), down.stderr);
});

// serve.test.mjs - `aflame-render serve` driven over HTTP by real clients
// (node's fetch, raw sockets, curl when installed): uploads, pages, views,
// bad uploads, hostile paths, limits, the catalogue across kill -9.
// Run by ctest, which sets AF_CLI, AF_SAMPLES and AF_TMP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, existsSync, readdirSync, statSync } from "node:fs";
import { spawnSync, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import net from "node:net";
import { cli, samples, freshDir, start, raw, get, files, commandSet, commandSays,
         folded } from "./server.mjs";

const app = `${samples}/app.trace`;
const appBytes = readFileSync(app);
let data, srv, appUpload;

before(async () => {
  data = freshDir("serve-main");
  srv = await start(data, ["--sample", app, "--max-upload", "2M", "--jobs", "2"]);
});
after(async () => {
  if (srv) {
    const { code } = await srv.stop();
    assert.equal(code, 0, `the server did not stop cleanly:\n${srv.log().slice(-3000)}`);
  }
});

const json = { Accept: "application/json" };

async function upload(body, { name = "upload.trace", headers = {} } = {}) {
  return fetch(`${srv.url}/upload?name=${encodeURIComponent(name)}`, {
    method: "POST", body, headers: { ...json, ...headers }, redirect: "manual" });
}

function tmpEmpty() {
  return readdirSync(`${data}/tmp`).length === 0;
}

test("the upload page: a file picker, the limit, the sample, how to record", async () => {
  const r = await fetch(`${srv.url}/`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(r.headers.get("x-content-type-options"), "nosniff");
  assert.match(r.headers.get("content-security-policy"), /script-src 'self'/);
  const html = await r.text();
  assert.match(html, /<input type="file" name="trace"/);
  assert.match(html, /at most 2 MiB \(2097152 bytes\)/);
  assert.match(html, /Debug\.startMethodTracing/);
  assert.match(html, /adb pull/);
  assert.match(html, /<script src="\/static\/upload\.js" defer><\/script>/);
  assert.doesNotMatch(html, /<script>/, "no inline script");
  const m = /href="(\/trace\/[0-9a-f]{64}\/)"/.exec(html);
  assert.ok(m, "a link to the sample's page");
  const s = await fetch(srv.url + m[1]);
  assert.equal(s.status, 200);
  assert.match(await s.text(), /app\.trace/);
  const js = await fetch(`${srv.url}/static/upload.js`);
  assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.match(await js.text(), /XMLHttpRequest/);
});

test("a raw upload: JSON with the URL, threads and totals; the set as the command writes it", async () => {
  const r = await upload(appBytes, { name: "app.trace" });
  assert.equal(r.status, 200);
  const j = await r.json();
  appUpload = j;
  assert.match(j.url, /^\/trace\/[0-9a-f]{64}\/$/);
  assert.equal(j.name, "app.trace");
  assert.equal(j.size, appBytes.length);
  assert.equal(j.variant, "regular");
  assert.deepEqual(j.clocks, ["wall", "cpu", "wait"]);
  assert.ok(j.threads.length >= 5);
  assert.ok(j.threads.some((t) => t.name === "main"));
  const sum = j.threads.reduce((a, t) => a + t.total_us.wall, 0);
  assert.equal(j.totals_us.wall, sum);
  // every file of the set, byte for byte what the command writes
  const mine = commandSet(app, "app.trace", `${data}/../serve-main-cmd`, ["--format", "svg,folded"]);
  const stored = `${data}/traces/${j.hash}/set`;
  const want = files(mine);
  assert.ok(want.includes("all.svg") && want.includes("index.html") && want.includes("1-main.folded"));
  for (const f of want) {
    assert.deepEqual(readFileSync(`${stored}/${f}`), readFileSync(`${mine}/${f}`), f);
    if (f === "index.html") continue; // served with the bar of links put in
    const g = await fetch(`${srv.url}${j.url}${f}`);
    assert.equal(g.status, 200, f);
    assert.deepEqual(Buffer.from(await g.arrayBuffer()), readFileSync(`${mine}/${f}`), f);
  }
  assert.ok(tmpEmpty());
});

test("the same bytes get the same URL, and a second upload costs nothing", async () => {
  const dir = `${data}/traces/${appUpload.hash}`;
  const before = statSync(`${dir}/set/all.svg`).mtimeMs;
  const r = await upload(appBytes, { name: "other-name.trace" });
  assert.equal(r.status, 200);
  const j = await r.json();
  assert.equal(j.url, appUpload.url);
  assert.equal(j.name, "app.trace", "the first upload's name stays");
  assert.equal(statSync(`${dir}/set/all.svg`).mtimeMs, before, "nothing drawn again");
  assert.ok(tmpEmpty());
});

test("a browser form (multipart) is redirected to the trace's page", async () => {
  const fd = new FormData();
  fd.append("trace", new Blob([readFileSync(`${samples}/app-streaming.trace`)]), "app-streaming.trace");
  const r = await fetch(`${srv.url}/upload`, { method: "POST", body: fd, redirect: "manual" });
  assert.equal(r.status, 303);
  const loc = r.headers.get("location");
  assert.match(loc, /^\/trace\/[0-9a-f]{64}\/$/);
  const p = await fetch(srv.url + loc);
  assert.equal(p.status, 200);
  const html = await p.text();
  assert.match(html, /app-streaming\.trace/);
  assert.match(html, /streaming/);
  // without the trailing slash: sent to the page, whose links are relative
  const bare = await fetch(srv.url + loc.slice(0, -1), { redirect: "manual" });
  assert.equal(bare.status, 301);
  assert.equal(bare.headers.get("location"), loc);
});

test("a key+data pair, two files of one form: stored and drawn as the command draws KEY DATA", async () => {
  // the sample split where its key ends: app.key + app.data, as a legacy tracer writes them
  const end = appBytes.indexOf("*end\n") + 5;
  const key = appBytes.subarray(0, end), dat = appBytes.subarray(end);
  const form = (parts) => {
    const fd = new FormData();
    for (const [field, bytes, name] of parts) fd.append(field, new Blob([bytes]), name);
    return fd;
  };
  // data first: the halves are told by their bytes, not by their order
  const r = await fetch(`${srv.url}/upload`, { method: "POST", headers: json,
    body: form([["trace", dat, "app.data"], ["trace", key, "app.key"]]) });
  assert.equal(r.status, 200, await r.clone().text());
  const j = await r.json();
  assert.equal(j.variant, "key+data");
  assert.equal(j.name, "app.key");
  assert.equal(j.size, appBytes.length);
  // the set, byte for byte what the command writes for app.key beside app.data
  const dir = freshDir("serve-main-pair");
  const mkdir = (await import("node:fs")).mkdirSync;
  mkdir(`${dir}/orig`);
  writeFileSync(`${dir}/orig/app.key`, key);
  writeFileSync(`${dir}/orig/app.data`, dat);
  execFileSync(cli, ["--per-thread", "--format", "svg,folded", "-o", "../set", "--", "app.key"],
               { cwd: `${dir}/orig`, stdio: ["ignore", "ignore", "pipe"] });
  const stored = `${data}/traces/${j.hash}/set`;
  const want = files(`${dir}/set`);
  assert.ok(want.includes("all.svg") && want.includes("index.html"));
  for (const f of want)
    assert.deepEqual(readFileSync(`${stored}/${f}`), readFileSync(`${dir}/set/${f}`), f);
  // both halves kept and offered
  const orig = Buffer.from(await (await fetch(`${srv.url}${j.url}original`)).arrayBuffer());
  assert.deepEqual(orig, key);
  const od = Buffer.from(await (await fetch(`${srv.url}${j.url}original.data`)).arrayBuffer());
  assert.deepEqual(od, dat);
  assert.match(await (await fetch(srv.url + j.url)).text(), /original\.data/);
  // the same pair, the other way round and under other names: the same URL
  const again = await fetch(`${srv.url}/upload`, { method: "POST", headers: json,
    body: form([["key", key, "x.key"], ["data", dat, "x.data"]]) });
  assert.equal(again.status, 200);
  assert.equal((await again.json()).url, j.url);
  // a view of it is drawn too
  const v = await fetch(`${srv.url}${j.url}?clock=cpu`, { redirect: "manual" });
  assert.equal(v.status, 303);
  assert.equal((await fetch(srv.url + v.headers.get("location"))).status, 200);
  // two halves that are no pair: the library's message, nothing stored
  const bad = await fetch(`${srv.url}/upload`, { method: "POST", headers: json,
    body: form([["trace", key, "a.key"], ["trace", Buffer.from("main;x 1\n"), "b.data"]]) });
  assert.ok([415, 422].includes(bad.status), `${bad.status}`);
  const msg = (await bad.json()).error;
  assert.match(msg, /^aflame-render: a\.key: /);
  assert.doesNotMatch(msg, new RegExp(data), "no server path in the message");
  // three files: refused
  const three = await fetch(`${srv.url}/upload`, { method: "POST", headers: json,
    body: form([["a", key, "a.key"], ["b", dat, "a.data"], ["c", dat, "c.data"]]) });
  assert.equal(three.status, 400);
  assert.match((await three.json()).error, /at most two files/);
  assert.ok(tmpEmpty());
});

test("curl: --data-binary and -F", { skip: spawnSync("curl", ["--version"]).status !== 0 && "curl is not installed" }, () => {
  const a = spawnSync("curl", ["-s", "-H", "Accept: application/json", "--data-binary",
                              `@${samples}/app-dalvik-v1.trace`, `${srv.url}/upload`], { encoding: "utf8" });
  assert.equal(a.status, 0, a.stderr);
  const j = JSON.parse(a.stdout);
  assert.match(j.url, /^\/trace\/[0-9a-f]{64}\/$/);
  const b = spawnSync("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                              "-F", `trace=@${samples}/app-dalvik-v1.trace`, `${srv.url}/upload`],
                      { encoding: "utf8" });
  assert.equal(b.stdout, `303 ${srv.url}${j.url}`);
});

test("bad uploads: the command's message, the right status, nothing stored", async () => {
  const scratch = `${data}/../serve-main-bad`;
  const before = readdirSync(`${data}/traces`).length;
  // not a trace
  const junk = Buffer.from("hello, not a trace\n");
  writeFileSync(`${data}/../junk.bin`, junk);
  let r = await upload(junk, { name: "notes.txt" });
  assert.equal(r.status, 415);
  let j = await r.json();
  assert.equal(j.error, commandSays(`${data}/../junk.bin`, "notes.txt", scratch));
  // truncated inside the key
  const cut = appBytes.subarray(0, 300);
  writeFileSync(`${data}/../cut.trace`, cut);
  r = await upload(cut, { name: "cut.trace" });
  assert.equal(r.status, 422);
  j = await r.json();
  assert.equal(j.error, commandSays(`${data}/../cut.trace`, "cut.trace", scratch));
  assert.match(j.error, /^aflame-render: cut\.trace: .*\(byte \d+\)$/);
  // a browser gets a page with the message, escaped
  r = await fetch(`${srv.url}/upload?name=%3Cb%3E.trace`, { method: "POST", body: junk });
  assert.equal(r.status, 415);
  const page = await r.text();
  assert.match(page, /<pre class="err" id="message">aflame-render: _b_.trace: not an Android/);
  // empty
  r = await upload(Buffer.alloc(0));
  assert.equal(r.status, 400);
  assert.match((await r.json()).error, /empty/);
  // over the limit, said in Content-Length: a client already sending gets its 413
  // after the body (dropped, never stored), not a reset connection
  r = await upload(Buffer.alloc(3 * 1024 * 1024, 0x41));
  assert.equal(r.status, 413);
  assert.match((await r.json()).error, /at most 2097152/);
  // one that waits for "100 Continue" gets it before sending anything
  const big = `${data}/../big.bin`;
  writeFileSync(big, Buffer.alloc(5 * 1024 * 1024, 0x41));
  const c = spawnSync("curl", ["-s", "-H", "Accept: application/json", "-H", "Expect: 100-continue",
                              "--expect100-timeout", "30", "-w", "\n%{http_code} %{size_upload}",
                              "--data-binary", `@${big}`, `${srv.url}/upload`],
                      { encoding: "utf8" });
  const cut2 = c.stdout.lastIndexOf("\n");
  const cbody = c.stdout.slice(0, cut2), cstat = c.stdout.slice(cut2 + 1);
  assert.equal(cstat, "413 0", "refused before the body is sent");
  assert.match(JSON.parse(cbody).error, /is 5242880 bytes: this server takes at most 2097152/);
  // a form without a file; a form whose boundary never comes
  const fd = new FormData();
  fd.append("note", "no file here");
  r = await fetch(`${srv.url}/upload`, { method: "POST", body: fd, headers: json });
  assert.equal(r.status, 400);
  assert.match((await r.json()).error, /no file/);
  r = await fetch(`${srv.url}/upload`, { method: "POST", body: "garbage",
    headers: { ...json, "Content-Type": "multipart/form-data" } });
  assert.equal(r.status, 400);
  assert.equal(readdirSync(`${data}/traces`).length, before, "nothing stored");
  assert.ok(tmpEmpty(), "nothing left in tmp/");
});

test("over the limit while streaming (no Content-Length): 413 or cut off, nothing on disk", async () => {
  const before = readdirSync(`${data}/traces`).length;
  // chunked transfer: the server only learns the size as it reads
  const chunk = Buffer.alloc(256 * 1024, 0x41);
  let sent = 0;
  const body = new ReadableStream({
    pull(c) { if (sent >= 4 * 1024 * 1024) return c.close(); sent += chunk.length; c.enqueue(chunk); },
  });
  let status = 0;
  try {
    const r = await fetch(`${srv.url}/upload`, { method: "POST", body, duplex: "half", headers: json });
    status = r.status;
    if (status === 413) assert.match((await r.json()).error, /over 2097152 bytes/);
  } catch (e) {
    status = -1; // the server hung up past twice the limit
  }
  assert.ok(status === 413 || status === -1, `status ${status}`);
  assert.equal(readdirSync(`${data}/traces`).length, before);
  await new Promise((res) => setTimeout(res, 200));
  assert.ok(tmpEmpty(), "nothing left in tmp/");
});

test("hostile paths: only the server's hashes and a set's own files are served", async () => {
  const h = appUpload.hash;
  const paths = [
    "/trace/../../etc/passwd", "/trace/%2e%2e/%2e%2e/etc/passwd",
    "/trace/..%2f..%2f..%2fetc%2fpasswd", `/trace/${h}/../../catalogue.sqlite`,
    `/trace/${h}/%2e%2e/%2e%2e/catalogue.sqlite`, `/trace/${h}/..%2F..%2Fcatalogue.sqlite`,
    `/trace/${h}/all.svg%00.png`, `/trace/${h}%00/all.svg`, `/trace/${h}/.query`,
    `/trace/${h}/orig`, `/trace/${h}/v/../set/all.svg`, `/trace/${h.toUpperCase()}/all.svg`,
    `/trace/${"0".repeat(64)}/all.svg`, "/trace/", "/traces/", "/tmp/", "/catalogue.sqlite",
    "/list", `/trace/${h}/v/${"0".repeat(32)}/`, `/trace/${h}/v/${"0".repeat(32)}/all.svg`,
    "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", `/trace/${h}/%2fetc%2fpasswd`,
  ];
  for (const p of paths) {
    const r = await get(srv.port, p);
    assert.ok(r.status === 404 || r.status === 400 || r.status === 301, `${p}: ${r.status}`);
    if (r.status === 301) assert.match(r.headers.location, /^\/trace\/[0-9a-f]{64}\/$/, p);
    assert.doesNotMatch(r.body || "", /root:|SQLite format/, p);
  }
  // no listing of the catalogue without --list
  assert.equal((await fetch(`${srv.url}/list`)).status, 404);
  // the one file outside the set that is served: the original, as a download
  const o = await fetch(`${srv.url}/trace/${h}/original`);
  assert.equal(o.status, 200);
  assert.equal(o.headers.get("content-disposition"), 'attachment; filename="app.trace"');
  assert.deepEqual(Buffer.from(await o.arrayBuffer()), appBytes);
  // only GET, HEAD and POST /upload
  const d = await fetch(`${srv.url}/`, { method: "DELETE" });
  assert.equal(d.status, 405);
});

test("types and headers: SVG, PNG, page, text; CSP and nosniff everywhere", async () => {
  const base = srv.url + appUpload.url;
  const want = { "all.svg": "image/svg+xml", "all.thumb.png": "image/png",
                 "all.folded": "text/plain; charset=utf-8", "report.tsv": "text/plain; charset=utf-8",
                 "": "text/html; charset=utf-8", "report": "text/html; charset=utf-8" };
  for (const [f, type] of Object.entries(want)) {
    const r = await fetch(base + f);
    assert.equal(r.status, 200, f);
    assert.equal(r.headers.get("content-type"), type, f);
    assert.equal(r.headers.get("x-content-type-options"), "nosniff", f);
    assert.ok(r.headers.get("content-security-policy"), f);
    await r.arrayBuffer();
  }
  const svg = await fetch(base + "all.svg");
  assert.match(svg.headers.get("content-security-policy"), /default-src 'none'/);
  const page = await (await fetch(base)).text();
  for (const link of ["original", "report.tsv", "report", "all.folded"])
    assert.match(page, new RegExp(`href="${appUpload.url}${link}"`));
  const report = await (await fetch(base + "report")).text();
  assert.match(report, /<table id="report">/);
  assert.match(report, /<script src="\/static\/sort\.js" defer>/);
});

// The text of the first `open` element (the last with `last`), as a CSP
// hash source: 'sha256-<base64>'.
function inlineHash(html, tag, last = false) {
  const open = `<${tag}>`, close = `</${tag}>`;
  const at = (last ? html.lastIndexOf(open) : html.indexOf(open)) + open.length;
  const text = html.slice(at, html.indexOf(close, at));
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

test("the HTML profile: the command's page, made once, its inline script and style allowed by hash", async () => {
  const base = srv.url + appUpload.url;
  const page = await (await fetch(base)).text();
  assert.match(page, new RegExp(`href="${appUpload.url}methods\\.html"`));
  const kept = `${data}/traces/${appUpload.hash}/methods.html`;
  assert.ok(!existsSync(kept), "made when first asked for");
  const r = await fetch(base + "methods.html");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(r.headers.get("x-content-type-options"), "nosniff");
  const html = await r.text();
  // byte for byte what the command writes for the same file
  const dir = freshDir("serve-main-methods");
  writeFileSync(`${dir}/app.trace`, appBytes);
  execFileSync(cli, ["--report", "methods.html", "--report-format", "html", "--", "app.trace"],
               { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  assert.equal(html, readFileSync(`${dir}/methods.html`, "utf8"));
  assert.ok(existsSync(kept), "kept beside the trace");
  // the policy: exactly its one inline style and one inline script, by hash
  const csp = Object.fromEntries(r.headers.get("content-security-policy").split(/;\s*/)
    .map((d) => { const [k, ...v] = d.trim().split(/\s+/); return [k, v.join(" ")]; }));
  assert.equal(csp["default-src"], "'none'");
  assert.equal(csp["script-src"], inlineHash(html, "script", true));
  assert.equal(csp["style-src"], inlineHash(html, "style"));
  assert.equal(html.split("<script>").length, 2, "one inline script");
  assert.equal(html.split("<style>").length, 2, "one inline style");
  assert.doesNotMatch(r.headers.get("content-security-policy"), /unsafe-inline|unsafe-eval|'self'/);
  // asked again: the kept page, not drawn again
  const before = statSync(kept).mtimeMs;
  const again = await fetch(base + "methods.html");
  assert.equal(again.status, 200);
  assert.equal(await again.text(), html);
  assert.equal(again.headers.get("content-security-policy"), r.headers.get("content-security-policy"));
  assert.equal(statSync(kept).mtimeMs, before);
  // a trace there is not
  assert.equal((await fetch(`${srv.url}/trace/${"0".repeat(64)}/methods.html`)).status, 404);
  assert.ok(tmpEmpty());
});

test("views from the URL: drawn once, cached, as the command draws them", async () => {
  const base = srv.url + appUpload.url;
  const r = await fetch(`${base}?clock=cpu&collapse-recursion=1&focus=`, { redirect: "manual" });
  assert.equal(r.status, 303);
  const loc = r.headers.get("location");
  assert.match(loc, new RegExp(`^${appUpload.url}v/[0-9a-f]{32}/$`));
  const page = await (await fetch(srv.url + loc)).text();
  assert.match(page, /thread-cpu/);
  assert.match(page, /View: <code>clock=cpu&amp;collapse-recursion<\/code>/);
  const mine = commandSet(app, "app.trace", `${data}/../serve-main-view`,
                          ["--clock=cpu", "--collapse-recursion"]);
  const svg = Buffer.from(await (await fetch(srv.url + loc + "all.svg")).arrayBuffer());
  assert.deepEqual(svg, readFileSync(`${mine}/all.svg`));
  // the same view again: straight to the cache, in any order of the query
  const again = await fetch(`${base}?collapse-recursion=1&clock=cpu`, { redirect: "manual" });
  assert.equal(again.status, 303);
  assert.equal(again.headers.get("location"), loc);
  // every view parameter the command knows
  const all = await fetch(`${base}?clock=wall&thread=main&focus=onCreate&exclude=inflate&min-share=1` +
                          "&strip-package=1&inverted=1&flamechart=1&theme=dark", { redirect: "manual" });
  assert.equal(all.status, 303);
  const allPage = await fetch(srv.url + all.headers.get("location"));
  assert.equal(allPage.status, 200);
  // a bad regex: the command's message
  const bad = await fetch(`${base}?focus=(`, { headers: json });
  assert.equal(bad.status, 422);
  assert.match((await bad.json()).error, /^aflame-render: /);
  // an unknown parameter, a bad clock
  assert.equal((await fetch(`${base}?colour=red`)).status, 400);
  assert.equal((await fetch(`${base}?clock=sundial`)).status, 400);
  assert.ok(tmpEmpty());
});

test("a frame named like markup stays text", async () => {
  const evil = "main;</script><script>alert(1)</script>;<img src=x onerror=alert(2)> 10\nmain;ok 5\n";
  const r = await upload(Buffer.from(evil), { name: "evil.folded" });
  assert.equal(r.status, 200);
  const j = await r.json();
  assert.equal(j.variant, "folded");
  assert.equal(j.total_count, 15);
  const svg = await (await fetch(`${srv.url}${j.url}all.svg`)).text();
  assert.doesNotMatch(svg, /<script>alert|<img src=x/);
  const page = await (await fetch(srv.url + j.url)).text();
  assert.doesNotMatch(page, /<script>alert|<img src=x/);
});

test("one log line per request on standard error", async () => {
  await fetch(`${srv.url}/trace/${"f".repeat(64)}/`);
  await new Promise((res) => setTimeout(res, 100));
  const log = srv.log();
  assert.match(log, /^GET \/ 200 \d+ [\d.]+ms$/m);
  assert.match(log, new RegExp(`^GET /trace/${"f".repeat(64)}/ 404 \\d+ [\\d.]+ms$`, "m"));
  assert.match(log, /^POST \/upload 415 \d+ [\d.]+ms$/m);
});

test("idle connections time out; a slow client holds up no one", async () => {
  const d = freshDir("serve-idle");
  const s = await start(d, ["--sample", "none", "--timeout", "2", "--max-connections", "1200"]);
  try {
    const socks = [];
    for (let i = 0; i < 1000; i++) {
      const c = net.connect(s.port, "127.0.0.1");
      c.on("error", () => {});
      c.gone = new Promise((res) => c.on("close", res));
      socks.push(c);
    }
    await Promise.all(socks.map((c) => new Promise((res) => c.once("connect", res))));
    // a slow client: a byte of a request now and then
    const slow = net.connect(s.port, "127.0.0.1");
    slow.on("error", () => {});
    const req = "GET / HTTP/1.1\r\nHost: x\r\n";
    let i = 0;
    const drip = setInterval(() => { if (i < req.length) slow.write(req[i++]); }, 300);
    // others are answered meanwhile
    for (let k = 0; k < 20; k++) {
      const r = await fetch(`${s.url}/`);
      assert.equal(r.status, 200);
      await r.text();
    }
    // the idle ones are closed by the server after --timeout
    await Promise.all(socks.map((c) => c.gone));
    clearInterval(drip);
    slow.destroy();
  } finally {
    const { code } = await s.stop();
    assert.equal(code, 0);
  }
});

test("views and diffs past --cache-size: the least recently used are dropped", async () => {
  const d = freshDir("serve-cache");
  const viewDir = (h, loc) => `${d}/traces/${h}/views/${/\/v\/([0-9a-f]{32})\//.exec(loc)[1]}`;
  const sizeOf = (dir) => files(dir).reduce((a, f) => a + statSync(`${dir}/${f}`).size, 0);
  const draw = async (s, h, q) => {
    const r = await fetch(`${s.url}/trace/${h}/?${q}`, { redirect: "manual" });
    assert.equal(r.status, 303, q);
    return r.headers.get("location");
  };
  // three views, under the default bound (1G): all kept
  let s = await start(d, ["--sample", "none"]);
  let h, a, b, c;
  try {
    const r = await fetch(`${s.url}/upload?name=app.trace`, { method: "POST", body: appBytes, headers: json });
    h = (await r.json()).hash;
    a = await draw(s, h, "clock=cpu");
    b = await draw(s, h, "clock=wait");
    c = await draw(s, h, "inverted=1");
    for (const v of [a, b, c]) assert.ok(existsSync(viewDir(h, v)), v);
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
  // a bound just under the three: A served again (so used last), then a
  // fourth drawn: B, the least recently used, goes; A and the new one stay
  const bound = sizeOf(viewDir(h, a)) + sizeOf(viewDir(h, b)) + sizeOf(viewDir(h, c)) - 1;
  s = await start(d, ["--sample", "none", "--cache-size", String(bound)]);
  try {
    assert.equal(await draw(s, h, "clock=cpu"), a);
    const e = await draw(s, h, "flamechart=1");
    assert.ok(!existsSync(viewDir(h, b)), "the least recently used view is dropped");
    assert.ok(existsSync(viewDir(h, a)), "the view served again stays");
    assert.ok(existsSync(viewDir(h, e)), "the new view stays");
    const total = ["views"].flatMap((k) => readdirSync(`${d}/traces/${h}/${k}`))
      .reduce((t, id) => t + sizeOf(`${d}/traces/${h}/views/${id}`), 0);
    assert.ok(total <= bound, `${total} bytes kept, bound ${bound}`);
    // B asked again: drawn again, at the same place
    assert.equal(await draw(s, h, "clock=wait"), b);
    assert.equal((await fetch(s.url + b)).status, 200);
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
  // a bound smaller than any view: only the newest is kept
  s = await start(d, ["--sample", "none", "--cache-size", "1"]);
  try {
    const x = await draw(s, h, "strip-package=1");
    assert.deepEqual(readdirSync(`${d}/traces/${h}/views`), [viewDir(h, x).split("/").pop()]);
    assert.equal((await fetch(s.url + x)).status, 200);
    // a diff is in the same cache: drawn, it drops the view; a view drops it
    const after = await fetch(`${s.url}/upload?name=app-after.trace`, { method: "POST",
      body: readFileSync(`${samples}/app-after.trace`), headers: json });
    const h2 = (await after.json()).hash;
    const diff = await fetch(`${s.url}/diff/${h}/${h2}`);
    assert.equal(diff.status, 200);
    await diff.arrayBuffer();
    assert.deepEqual(readdirSync(`${d}/traces/${h}/views`), []);
    assert.equal(readdirSync(`${d}/traces/${h2}/diffs`).length, 1);
    await draw(s, h, "clock=cpu");
    assert.equal(readdirSync(`${d}/traces/${h2}/diffs`).length, 0);
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
});

test("--request-timeout: a client that keeps sending, too slowly, is cut off; others are not", async () => {
  const d = freshDir("serve-request-time");
  const s = await start(d, ["--sample", "none", "--timeout", "30", "--request-timeout", "2"]);
  try {
    // a byte every 200 ms is never idle for --timeout, but never done either
    const drip = (first, text) => new Promise((resolve) => {
      const c = net.connect(s.port, "127.0.0.1");
      c.write(first);
      let i = 0, closed = false, answer = "";
      c.on("error", () => {});
      c.on("data", (b) => { answer += b; });
      c.on("close", () => { closed = true; });
      const t = setInterval(() => {
        if (closed || i >= text.length) {
          clearInterval(t);
          c.destroy();
          resolve({ cut: closed, sent: i, answer });
          return;
        }
        c.write(text[i++]);
      }, 200);
    });
    const body = "x".repeat(150);
    const [inBody, inHead] = await Promise.all([
      drip("POST /upload?name=slow.trace HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", body),
      drip("GET / HTTP/1.1\r\nHost: x\r\n", `X-Slow: ${body}`),
    ]);
    assert.ok(inBody.cut, `the slow body was sent whole (${inBody.sent} bytes)`);
    assert.ok(inHead.cut, `the slow header was sent whole (${inHead.sent} bytes)`);
    // the server removes it once done with the connection it shut: a
    // moment after the client saw it close
    for (const until = Date.now() + 10000; readdirSync(`${d}/tmp`).length && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(readdirSync(`${d}/tmp`).length, 0, "nothing of the cut upload kept");
    // an upload of the usual speed is drawn, however long its drawing takes
    const r = await fetch(`${s.url}/upload?name=app.trace`, { method: "POST", body: appBytes, headers: json });
    assert.equal(r.status, 200);
    assert.equal((await fetch(`${s.url}/`)).status, 200);
    assert.match(s.log(), /^POST \/upload 0 0 [\d.]+ms \(cut off\)$/m);
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
});

test("--upload-token and --list", async () => {
  const d = freshDir("serve-token");
  writeFileSync(`${d}/../serve-token.txt`, "s3cret\n");
  const s = await start(d, ["--sample", "none", "--list", "--upload-token", `${d}/../serve-token.txt`]);
  try {
    const body = Buffer.from(folded(1));
    let r = await fetch(`${s.url}/upload`, { method: "POST", body, headers: json });
    assert.equal(r.status, 401);
    r = await fetch(`${s.url}/upload`, { method: "POST", body, headers: { ...json, Authorization: "Bearer wrong" } });
    assert.equal(r.status, 401);
    r = await fetch(`${s.url}/upload?name=one.folded`, { method: "POST", body,
      headers: { ...json, Authorization: "Bearer s3cret" } });
    assert.equal(r.status, 200);
    const j = await r.json();
    // a form with the token as a field
    const fd = new FormData();
    fd.append("token", "s3cret");
    fd.append("trace", new Blob([folded(2)]), "two.folded");
    r = await fetch(`${s.url}/upload`, { method: "POST", body: fd, redirect: "manual" });
    assert.equal(r.status, 303);
    const fd2 = new FormData();
    fd2.append("trace", new Blob([folded(3)]), "three.folded");
    r = await fetch(`${s.url}/upload`, { method: "POST", body: fd2, redirect: "manual" });
    assert.equal(r.status, 401);
    const list = await (await fetch(`${s.url}/list`)).text();
    assert.match(list, new RegExp(`href="${j.url}">one\\.folded<`));
    assert.match(list, /two\.folded/);
    assert.doesNotMatch(list, /three\.folded/);
    assert.equal(readdirSync(`${d}/tmp`).length, 0);
  } finally {
    await s.stop();
  }
});

test("a full render queue is a 503, never a failure", async () => {
  const d = freshDir("serve-busy");
  const s = await start(d, ["--sample", "none", "--jobs", "1", "--queue", "1"]);
  try {
    const rs = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      fetch(`${s.url}/upload?name=b${i}.folded`, { method: "POST", body: folded(100 + i, 400),
                                                   headers: json })));
    const codes = rs.map((r) => r.status);
    for (const r of rs) await r.text();
    assert.ok(codes.every((c) => c === 200 || c === 503), codes.join(","));
    assert.ok(codes.includes(200), codes.join(","));
    const busy = rs.find((r) => r.status === 503);
    if (busy) assert.equal(busy.headers.get("retry-after"), "5");
  } finally {
    await s.stop();
  }
});

test("kill -9, during an upload too: a restart serves every acknowledged upload, nothing half-written", async () => {
  const d = freshDir("serve-crash");
  let s = await start(d, ["--sample", "none"]);
  const acked = [];
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${s.url}/upload?name=c${i}.folded`, { method: "POST",
      body: folded(200 + i), headers: json });
    assert.equal(r.status, 200);
    acked.push(await r.json());
  }
  // an upload half sent when the server dies
  const c = net.connect(s.port, "127.0.0.1");
  c.on("error", () => {});
  await new Promise((res) => c.once("connect", res));
  c.write("POST /upload?name=half.folded HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  c.write(folded(999));
  await new Promise((res) => setTimeout(res, 300));
  assert.ok(readdirSync(`${d}/tmp`).length > 0, "the upload is under way");
  await s.kill9();
  c.destroy();
  s = await start(d, ["--sample", "none"]);
  try {
    assert.equal(readdirSync(`${d}/tmp`).length, 0, "what was half-written is gone");
    for (const j of acked) {
      const r = await fetch(s.url + j.url);
      assert.equal(r.status, 200, j.url);
      assert.match(await r.text(), new RegExp(j.name.replace(".", "\\.")));
    }
    assert.equal(readdirSync(`${d}/traces`).length, acked.length);
  } finally {
    await s.stop();
  }
});

test("/diff/<before>/<after>: the differential graph of two uploads, drawn once", async () => {
  const r = await upload(readFileSync(`${samples}/app-after.trace`), { name: "app-after.trace" });
  assert.equal(r.status, 200);
  const after = await r.json();
  const url = `${srv.url}/diff/${appUpload.hash}/${after.hash}`;
  const d = await fetch(url);
  assert.equal(d.status, 200);
  assert.equal(d.headers.get("content-type"), "image/svg+xml");
  assert.match(d.headers.get("content-security-policy"), /default-src 'none'/);
  const svg = await d.text();
  assert.match(svg, /app\.trace \u2192 app-after\.trace: red grew, blue shrank/);
  // as the command draws it (the uploads seen as before/ and after/)
  const dir = `${data}/../serve-main-diff`;
  spawnSync("rm", ["-rf", dir]);
  spawnSync("mkdir", ["-p", `${dir}/before`, `${dir}/after`]);
  writeFileSync(`${dir}/before/app.trace`, appBytes);
  writeFileSync(`${dir}/after/app-after.trace`, readFileSync(`${samples}/app-after.trace`));
  const c = spawnSync(cli, ["--diff", "before/app.trace",
                            "--subtitle=app.trace \u2192 app-after.trace: red grew, blue shrank",
                            "-o", "diff.svg", "--", "after/app-after.trace"], { cwd: dir });
  assert.equal(c.status, 0, String(c.stderr));
  assert.equal(svg, readFileSync(`${dir}/diff.svg`, "utf8"));
  const kept = `${data}/traces/${after.hash}/diffs/${appUpload.hash}.default.p.svg`;
  // (its time is when it was last used, for --cache-size: the file itself
  // is the same one)
  const ino = statSync(kept).ino;
  assert.equal(await (await fetch(url)).text(), svg);
  assert.equal(statSync(kept).ino, ino, "kept, not drawn again");
  // options, and what is refused
  assert.equal((await fetch(`${url}?clock=cpu&normalize=1`)).status, 200);
  assert.equal((await fetch(`${url}?clock=sundial`)).status, 400);
  assert.equal((await fetch(`${srv.url}/diff/${"0".repeat(64)}/${after.hash}`)).status, 404);
  assert.equal((await fetch(`${srv.url}/diff/${appUpload.hash}`)).status, 404);
  assert.ok(tmpEmpty());
});

test("a mapping file uploaded beside a trace: a view with the original names", async () => {
  const obf = readFileSync(`${samples}/app-obfuscated.trace`);
  let r = await upload(obf, { name: "app-obfuscated.trace" });
  assert.equal(r.status, 200);
  const t = await r.json();
  const mapping = readFileSync(`${samples}/app-mapping.txt`);
  r = await fetch(`${srv.url}/trace/${t.hash}/mapping?name=app-mapping.txt`, { method: "POST",
    body: mapping, headers: json });
  assert.equal(r.status, 200);
  const m = await r.json();
  assert.match(m.mapping, /^[0-9a-f]{64}$/);
  assert.equal(m.url, `/trace/${t.hash}/?mapping=${m.mapping}`);
  const v = await fetch(srv.url + m.url, { redirect: "manual" });
  assert.equal(v.status, 303);
  const loc = v.headers.get("location");
  const svg = Buffer.from(await (await fetch(srv.url + loc + "all.svg")).arrayBuffer());
  // as the command draws it with --mapping
  const dir = `${data}/../serve-main-mapping`;
  writeFileSync(`${data}/../app-mapping.txt`, mapping);
  const mine = commandSet(`${samples}/app-obfuscated.trace`, "app-obfuscated.trace", dir,
                          [`--mapping=${data}/../app-mapping.txt`]);
  assert.deepEqual(svg, readFileSync(`${mine}/all.svg`));
  assert.match(svg.toString(), /MainActivity/);
  // a browser form: sent to the view
  const fd = new FormData();
  fd.append("mapping", new Blob([mapping]), "mapping.txt");
  r = await fetch(`${srv.url}/trace/${t.hash}/mapping`, { method: "POST", body: fd, redirect: "manual" });
  assert.equal(r.status, 303);
  assert.equal(r.headers.get("location"), m.url);
  // a bad mapping: the command's message; an unknown one: 404
  writeFileSync(`${data}/../bad-mapping.txt`, "this is -> not: a mapping\n  at all\n");
  r = await fetch(`${srv.url}/trace/${t.hash}/mapping?name=bad-mapping.txt`, { method: "POST",
    body: readFileSync(`${data}/../bad-mapping.txt`), headers: json });
  const says = spawnSync(cli, ["--mapping", "bad-mapping.txt", "-o", "x.svg", `${samples}/app.trace`],
                         { cwd: `${data}/..`, encoding: "utf8" }).stderr.trim();
  assert.match(says, /^aflame-render: bad-mapping\.txt: .* \(line 1\)$/);
  assert.equal(r.status, 422);
  assert.equal((await r.json()).error, says);
  assert.equal((await fetch(`${srv.url}/trace/${t.hash}/?mapping=${"0".repeat(64)}`)).status, 404);
  assert.equal((await fetch(`${srv.url}/trace/${"0".repeat(64)}/mapping`, { method: "POST",
    body: mapping })).status, 404);
  assert.ok(tmpEmpty());
});

test("--max-memory: a trace over the budget gets the command's message, nothing stored", async () => {
  const d = freshDir("serve-memory");
  const s = await start(d, ["--sample", "none", "--max-memory", "64K"]);
  try {
    const r = await fetch(`${s.url}/upload?name=app.trace`, { method: "POST", body: appBytes,
      headers: json });
    assert.equal(r.status, 422);
    const says = commandSays(app, "app.trace", `${d}/../serve-memory-cmd`, ["--max-memory=65536"]);
    assert.match(says, /^aflame-render: app\.trace: /);
    assert.equal((await r.json()).error, says);
    assert.equal(readdirSync(`${d}/traces`).length, 0);
    assert.equal(readdirSync(`${d}/tmp`).length, 0);
  } finally {
    await s.stop();
  }
});

// serve.test.mjs - `aflame-render serve` in Chromium: the upload page, a
// trace uploaded through the file picker, the trace's page with every
// thumbnail, the main thread's graph zoomed and searched under the
// server's Content-Security-Policy, a view from the URL, hostile names.
// Run by ctest, which sets AF_CLI, AF_SAMPLES and AF_TMP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { why, launch, settledImages } from "./launch.mjs";
import { freshDir, start } from "../serve/server.mjs";

const samples = process.env.AF_SAMPLES;
const skip = { skip: why || false };
let browser, srv;

before(async () => {
  if (why) return;
  srv = await start(freshDir("browser-serve"), ["--sample", `${samples}/app.trace`]);
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  if (srv) {
    const { code } = await srv.stop();
    assert.equal(code, 0);
  }
});

// A page that records script errors, failed requests, refused content
// (CSP) and dialogs (an alert() from an upload would be one).
async function newPage() {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  page.problems = [];
  page.on("pageerror", (e) => page.problems.push(`error: ${e.message}`));
  // with why; an upload answered in full and then cut off by the page going
  // to the trace it answered (Chromium can report it so) is no problem
  page.on("requestfailed", async (r) => {
    const why = r.failure()?.errorText;
    const answered = why === "net::ERR_ABORTED" && (await r.response().catch(() => null))?.status() === 200;
    if (!answered)
      page.problems.push(`failed: ${r.method()} ${r.url()}: ${why}`);
  });
  page.on("console", (m) => { if (m.type() === "error") page.problems.push(`console: ${m.text()}`); });
  page.on("dialog", (d) => { page.problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  return page;
}

async function thumbnailsLoaded(page) {
  const imgs = await settledImages(page);
  assert.ok(imgs.length >= 5, `${imgs.length} thumbnails`);
  for (const i of imgs) assert.ok(i.w > 0, `${i.src} did not load`);
}

// The sample's page from the upload page, with every thumbnail in: a
// thumbnail still loading (they load lazily) when the test leaves the page
// would be cut off, and reported as a failed request.
async function openSample(page) {
  await Promise.all([page.waitForURL(/\/trace\/[0-9a-f]{64}\/$/, { timeout: 60000 }),
                     page.click("#sample")]);
  await page.waitForLoadState("load");
  await thumbnailsLoaded(page);
}

test("upload through the file picker, land on the trace's page, open and use a graph", skip, async () => {
  const page = await newPage();
  await page.goto(`${srv.url}/`);
  assert.match(await page.textContent("body"), /at most 1 GiB/);
  assert.ok(await page.$("#sample"), "a link to the sample's page");
  await Promise.all([
    page.waitForURL(/\/trace\/[0-9a-f]{64}\/$/, { timeout: 60000 }),
    page.setInputFiles("#file", `${samples}/app.trace`),
  ]);
  await page.waitForLoadState("load");
  await thumbnailsLoaded(page);
  const names = await page.$$eval(".card h2 a", (as) => as.map((a) => a.textContent));
  assert.equal(names[0], "All threads");
  assert.ok(names.includes("main"));
  assert.match(await page.textContent("nav.aflame-serve"), /app\.trace/);
  const traceUrl = page.url();

  // the main thread's graph, interactive under the server's CSP
  await page.click(".card h2 a >> text=main");
  await page.waitForFunction(() => window.aflame && window.aflame.frames.length > 0);
  assert.match(page.url(), /\/1-main\.svg$/);
  const onCreate = "com.example.shop.MainActivity.onCreate";
  const box = await page.evaluate((n) => {
    const f = window.aflame.frames.find((x) => x.name === n);
    const r = f.rect.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2, w: +f.rect.getAttribute("width") };
  }, onCreate);
  await page.mouse.click(box.x, box.y);
  const zoomed = await page.evaluate((n) =>
    +window.aflame.frames.find((x) => x.name === n).rect.getAttribute("width"), onCreate);
  assert.ok(zoomed > box.w, `zoomed from ${box.w} to ${zoomed}`);
  await page.evaluate(() => window.aflame.search("inflate"));
  assert.ok(+(await page.getAttribute("#matched", "data-pct")) > 0);

  // a view from the URL: the thread-cpu clock
  await page.goto(`${traceUrl}?clock=cpu`);
  assert.match(page.url(), /\/v\/[0-9a-f]{32}\/$/);
  assert.match(await page.textContent("body"), /thread-cpu/);
  await thumbnailsLoaded(page);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the trace's callers and callees page: sort, filter, a link, under its CSP", skip, async () => {
  const page = await newPage();
  // what the policy refuses, from before the page's first script
  await page.addInitScript(() => {
    window.refused = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.refused.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(`${srv.url}/`);
  await openSample(page);
  await Promise.all([page.waitForURL(/\/methods\.html$/, { timeout: 60000 }),
                     page.click("nav.aflame-serve a:text('callers and callees')")]);
  await page.waitForLoadState("load");
  const csp = (await page.request.get(page.url())).headers()["content-security-policy"];
  assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/]{43}='; style-src 'sha256-/);
  const shown = () => page.$$eval("#methods > tbody.method:not([hidden])",
                                  (bs) => bs.map((b) => b.dataset.name));
  // the script ran (it marks the table) and the style holds (relatives hidden)
  assert.equal(await page.getAttribute("#methods", "class"), "methods js");
  const cart = "tbody[data-name='com.example.shop.data.ProductRepository.loadCart']";
  assert.equal(await page.isVisible(`${cart} tr.rel`), false);
  // sort: exclusive time, heaviest first, then the other way
  await page.click("th[data-key=excl]");
  const down = await page.$$eval("#methods > tbody.method", (bs) => bs.map((b) => +b.dataset.excl));
  assert.deepEqual(down, [...down].sort((a, b) => b - a));
  assert.equal((await shown())[0], "com.example.shop.data.Json.parse");
  await page.click("th[data-key=excl]");
  const up = await page.$$eval("#methods > tbody.method", (bs) => bs.map((b) => +b.dataset.excl));
  assert.deepEqual(up, [...up].sort((a, b) => a - b));
  // filter
  await page.fill("#filter", "json");
  assert.deepEqual(await shown(), ["com.example.shop.data.Json.parse"]);
  assert.equal(await page.textContent("#count"), "1 of 32 methods");
  // a callee link, followed to a method the filter hid
  await page.fill("#filter", "loadCart");
  await page.click(`${cart} tr.row`);
  assert.equal(await page.isVisible(`${cart} tr.rel`), true);
  await page.click(`${cart} tbody.callees a:text("com.example.shop.data.Json.parse")`);
  const json = "tbody[data-name='com.example.shop.data.Json.parse']";
  await page.waitForFunction((sel) => {
    const b = document.querySelector(sel);
    const r = b.getBoundingClientRect();
    return !b.hidden && r.top >= 0 && r.top < window.innerHeight;
  }, json);
  assert.match(new URL(page.url()).hash, /^#m\d+$/);
  assert.equal(await page.isVisible(`${json} tr.rel`), true);
  assert.deepEqual(await page.evaluate(() => window.refused), []);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a key and its data chosen together in the file picker: one trace", skip, async () => {
  const bytes = (await import("node:fs")).readFileSync(`${samples}/app.trace`);
  const end = bytes.indexOf("*end\n") + 5;
  const page = await newPage();
  await page.goto(`${srv.url}/`);
  await Promise.all([
    page.waitForURL(/\/trace\/[0-9a-f]{64}\/$/, { timeout: 60000 }),
    page.setInputFiles("#file", [
      { name: "legacy.key", mimeType: "application/octet-stream", buffer: bytes.subarray(0, end) },
      { name: "legacy.data", mimeType: "application/octet-stream", buffer: bytes.subarray(end) }]),
  ]);
  await page.waitForLoadState("load");
  await thumbnailsLoaded(page);
  assert.match(await page.textContent("nav.aflame-serve"), /legacy\.key .* key\+data/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a diff of two uploads opens, interactive", skip, async () => {
  const up = async (f) => (await (await fetch(`${srv.url}/upload?name=${f}`, { method: "POST",
    body: (await import("node:fs")).readFileSync(`${samples}/${f}`),
    headers: { Accept: "application/json" } })).json()).hash;
  const a = await up("app.trace"), b = await up("app-after.trace");
  const page = await newPage();
  await page.goto(`${srv.url}/diff/${a}/${b}`);
  await page.waitForFunction(() => window.aflame && window.aflame.frames.length > 0);
  assert.match(await page.textContent("svg"), /app\.trace \u2192 app-after\.trace/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the view form draws what it is asked", skip, async () => {
  const page = await newPage();
  await page.goto(`${srv.url}/`);
  await openSample(page);
  await page.selectOption("select[name=clock]", "wait");
  await page.check("input[name=collapse-recursion]");
  await Promise.all([page.waitForURL(/\/v\/[0-9a-f]{32}\/$/), page.click("nav button[type=submit]")]);
  assert.match(await page.textContent("nav.aflame-serve"), /clock=wait&collapse-recursion/);
  await thumbnailsLoaded(page);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a frame named </script><script>alert(1)</script> runs nothing", skip, async () => {
  const evil = "main;</script><script>alert(1)</script>;<img src=x onerror=alert(2)> 10\n" +
               "main;<svg onload=alert(3)> 5\n";
  const r = await fetch(`${srv.url}/upload?name=evil.folded`, { method: "POST", body: evil,
    headers: { Accept: "application/json" } });
  assert.equal(r.status, 200);
  const { url } = await r.json();
  const page = await newPage();
  await page.goto(srv.url + url);
  for (const i of await settledImages(page)) assert.ok(i.w > 0, `${i.src} did not load`);
  await page.goto(`${srv.url}${url}all.svg`);
  await page.waitForFunction(() => window.aflame && window.aflame.frames.length > 0);
  const names = await page.evaluate(() => window.aflame.frames.map((f) => f.name));
  assert.ok(names.includes("</script><script>alert(1)</script>"), names.join("|"));
  await page.waitForTimeout(300);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a bad upload through the page shows the command's message", skip, async () => {
  const page = await newPage();
  await page.goto(`${srv.url}/`);
  await page.setInputFiles("#file", { name: "notes.txt", mimeType: "text/plain",
                                      buffer: Buffer.from("not a trace\n") });
  await page.waitForFunction(() => /aflame-render: notes\.txt: /.test(
    document.getElementById("status").textContent));
  assert.match(page.url(), /\/$/);
  // the 415 itself is the expected answer, not a problem of the page
  assert.deepEqual(page.problems.filter((p) => !/415/.test(p)), []);
  await page.close();
});

// profile.test.mjs - the HTML profile (--report-format html) in Chromium:
// columns sort, the filter box filters, a caller or callee link opens its
// method's row, and nothing is fetched.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { why, launch } from "./launch.mjs";

const cli = process.env.AF_CLI;
const samples = process.env.AF_SAMPLES;
const dir = process.env.AF_TMP + "/browser-profile";
const page = `${dir}/profile.html`;

let browser;
before(async () => {
  if (why) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync(cli, ["--report", page, "--report-format", "html", `${samples}/app.trace`]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); });

// The method names of the rows shown, top to bottom.
const shown = (tab) => tab.$$eval("#methods > tbody.method:not([hidden])",
                                  (bs) => bs.map((b) => b.dataset.name));

async function open(tab, hash = "") {
  const errors = [], outside = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  tab.on("request", (r) => { if (!r.url().startsWith("file:")) outside.push(r.url()); });
  await tab.goto(pathToFileURL(page).href + hash);
  await tab.waitForLoadState("load");
  return { errors, outside };
}

test("columns sort both ways", { skip: why || false }, async () => {
  const tab = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const { errors, outside } = await open(tab);
  let names = await shown(tab);
  assert.equal(names.length, 32);
  assert.equal(names[0], "android.app.ActivityThread.main"); // by inclusive time
  // exclusive time, heaviest first, then the other way
  await tab.click("th[data-key=excl]");
  names = await shown(tab);
  assert.equal(names[0], "com.example.shop.data.Json.parse");
  assert.equal(await tab.getAttribute("th[data-key=excl]", "aria-sort"), "descending");
  const excl = await tab.$$eval("#methods > tbody.method", (bs) => bs.map((b) => +b.dataset.excl));
  assert.deepEqual(excl, [...excl].sort((a, b) => b - a));
  await tab.click("th[data-key=excl]");
  const up = await tab.$$eval("#methods > tbody.method", (bs) => bs.map((b) => +b.dataset.excl));
  assert.deepEqual(up, [...up].sort((a, b) => a - b));
  assert.equal(await tab.getAttribute("th[data-key=excl]", "aria-sort"), "ascending");
  // names, A to Z
  await tab.click("th[data-key=name]");
  names = await shown(tab);
  assert.deepEqual(names, [...names].sort());
  // calls
  await tab.click("th[data-key=calls]");
  const calls = await tab.$$eval("#methods > tbody.method", (bs) => bs.map((b) => +b.dataset.calls));
  assert.equal(calls[0], 166); // Object.wait
  assert.deepEqual(errors, []);
  assert.deepEqual(outside, []);
  await tab.close();
});

test("the filter box keeps the methods it names", { skip: why || false }, async () => {
  const tab = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const { errors } = await open(tab);
  await tab.fill("#filter", "json");
  assert.deepEqual(await shown(tab), ["com.example.shop.data.Json.parse"]);
  assert.equal(await tab.textContent("#count"), "1 of 32 methods");
  await tab.fill("#filter", "");
  const all = await shown(tab);
  await tab.fill("#filter", "Choreographer");
  const names = await shown(tab);
  assert.deepEqual(names, all.filter((n) => n.includes("Choreographer")));
  assert.ok(names.length >= 2);
  await tab.fill("#filter", "");
  assert.equal((await shown(tab)).length, 32);
  assert.equal(await tab.textContent("#count"), "32 methods");
  assert.deepEqual(errors, []);
  await tab.close();
});

test("a callee link opens its method, even one the filter hid", { skip: why || false },
     async () => {
  const tab = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const { errors, outside } = await open(tab);
  const cart = "tbody[data-name='com.example.shop.data.ProductRepository.loadCart']";
  // a click on a row shows its callers and callees
  assert.equal(await tab.isVisible(`${cart} tr.rel`), false);
  await tab.click(`${cart} tr.row`);
  assert.equal(await tab.isVisible(`${cart} tr.rel`), true);
  const callers = await tab.$$eval(`${cart} tbody.callers a`, (as) => as.map((a) => a.textContent));
  assert.deepEqual(callers, ["java.util.concurrent.ThreadPoolExecutor$Worker.run",
                             "com.example.shop.ui.CartViewModel$load$1.invokeSuspend"]);
  // follow the callee Json.parse: its row opens and comes into view
  await tab.fill("#filter", "loadCart"); // Json.parse is now hidden
  await tab.click(`${cart} tbody.callees a:text("com.example.shop.data.Json.parse")`);
  const json = "tbody[data-name='com.example.shop.data.Json.parse']";
  await tab.waitForFunction((s) => {
    const b = document.querySelector(s);
    const r = b.getBoundingClientRect();
    return !b.hidden && r.top >= 0 && r.top < window.innerHeight;
  }, json);
  assert.equal(new URL(tab.url()).hash, "#m6");
  assert.equal(await tab.inputValue("#filter"), "");
  assert.equal(await tab.isVisible(`${json} tr.rel`), true);
  // and it names loadCart among its callers, linking back
  const back = await tab.$$eval(`${json} tbody.callers a`, (as) => as.map((a) => a.getAttribute("href")));
  assert.ok(back.includes("#m5"), back.join(" "));
  // the row's own arrow closes it again
  await tab.click(`${json} tr.row`);
  assert.equal(await tab.isVisible(`${json} tr.rel`), false);
  assert.deepEqual(errors, []);
  assert.deepEqual(outside, []);
  await tab.close();
});

test("a link into the page opens the method without a click", { skip: why || false },
     async () => {
  const tab = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  await open(tab, "#m9");
  assert.equal(await tab.isVisible("#m9 tr.rel"), true);
  assert.equal(await tab.getAttribute("#m9", "data-name"), "java.lang.Object.wait");
  await tab.close();
});

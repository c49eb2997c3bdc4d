// svg.test.mjs - the interactive SVG in a real browser (Debian's Chromium
// driven by playwright-core): zoom, search, hover details and tooltips,
// URL state.
// Run by ctest, which sets AF_CLI, AF_SAMPLES and AF_TMP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { why, launch } from "./launch.mjs";
import { pathToFileURL } from "node:url";

const cli = process.env.AF_CLI;
const samples = process.env.AF_SAMPLES;
const tmp = process.env.AF_TMP + "/browser";

let browser;
const svgPath = `${tmp}/app.svg`;

before(async () => {
  if (why) return;
  mkdirSync(tmp, { recursive: true });
  execFileSync(cli, ["-o", svgPath, `${samples}/app.trace`]);
  browser = await launch();
});

after(async () => { if (browser) await browser.close(); });

async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1300, height: 400 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.aflame && window.aflame.frames.length > 0);
  page.errors = errors;
  return page;
}

// Box of the first frame with this exact name, in page pixels.
async function frame(page, name) {
  return page.evaluate((n) => {
    const f = window.aflame.frames.find((f) => f.name === n);
    const r = f.rect.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height,
             width: +f.rect.getAttribute("width"),
             shown: f.g.style.display !== "none",
             faded: f.g.classList.contains("parent"),
             label: f.text ? f.text.textContent : "" };
  }, name);
}

// Share of the whole graph covered by paths through a frame matching `re`,
// from the folded output: the answer "Matched" must give.
function expectedShare(re) {
  const folded = execFileSync(cli, ["--format", "folded", `${samples}/app.trace`]).toString();
  let total = 0, hit = 0;
  for (const line of folded.trim().split("\n")) {
    const sp = line.lastIndexOf(" ");
    const n = +line.slice(sp + 1), frames = line.slice(0, sp).split(";");
    total += n;
    if (frames.some((f) => re.test(f))) hit += n;
  }
  return (100 * hit) / total;
}

test("click zooms a frame to full width, fades ancestors, hides the rest", { skip: why || false }, async () => {
  const page = await open(pathToFileURL(svgPath).href);
  const onCreate = "com.example.shop.MainActivity.onCreate";
  const before = await frame(page, onCreate);
  assert.ok(before.width < 400, `onCreate starts narrow (${before.width})`);
  await page.mouse.click(before.x + before.w / 2, before.y + before.h / 2);
  const after = await frame(page, onCreate);
  assert.equal(after.width, 1180);
  assert.ok(after.label.startsWith("com.example.shop.MainActivity.onCreate"), after.label);
  const main = await frame(page, "main");
  assert.ok(main.shown && main.faded && main.width === 1180);
  assert.equal((await frame(page, "RenderThread")).shown, false);
  assert.match(page.url(), /\?x=[\d.]+&y=[\d.]+$/);
  // hover: details with the share of the zoomed frame
  const child = await frame(page, "androidx.appcompat.app.AppCompatActivity.setContentView");
  await page.mouse.move(child.x + child.w / 2, child.y + child.h / 2);
  const details = await page.textContent("#details");
  assert.match(details, /^androidx\.appcompat\.app\.AppCompatActivity\.setContentView \([\d.]+ ms, [\d.]+%, \d+ calls?, [\d.]+% of com\.example\.shop\.MainActivity\.onCreate\)$/);
  // Escape resets
  await page.keyboard.press("Escape");
  assert.equal((await frame(page, onCreate)).width, before.width);
  assert.equal((await frame(page, "RenderThread")).shown, true);
  assert.doesNotMatch(page.url(), /\?/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("search highlights matches and reports the share they cover", { skip: why || false }, async () => {
  const page = await open(pathToFileURL(svgPath).href);
  page.on("dialog", (d) => d.accept("Object\\.wait|Json"));
  await page.keyboard.press("Control+f");
  await page.waitForFunction(() => document.getElementById("matched").textContent !== "");
  const pct = +(await page.getAttribute("#matched", "data-pct"));
  const want = expectedShare(/Object\.wait|Json/);
  assert.ok(Math.abs(pct - want) < 0.2, `matched ${pct}%, expected ${want}%`);
  assert.match(await page.textContent("#matched"), /^Matched: [\d.]+%$/);
  const fills = await page.evaluate(() => window.aflame.frames
    .filter((f) => /Object\.wait/.test(f.name)).map((f) => f.rect.getAttribute("fill")));
  assert.ok(fills.length > 0 && fills.every((c) => c === "#e600e6"));
  // case: "object.wait" matches only with the ic toggle
  await page.evaluate(() => window.aflame.search("object\\.wait"));
  assert.equal(await page.textContent("#matched"), "Matched: 0%");
  await page.keyboard.press("Control+i");
  assert.ok(+(await page.getAttribute("#matched", "data-pct")) > 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("zoom and search survive a reload through the URL", { skip: why || false }, async () => {
  let page = await open(pathToFileURL(svgPath).href);
  const f = await frame(page, "android.os.Handler.dispatchMessage");
  await page.mouse.click(f.x + f.w / 2, f.y + f.h / 2);
  await page.evaluate(() => window.aflame.search("inflate"));
  const url = page.url();
  const zoomedShare = +(await page.getAttribute("#matched", "data-pct"));
  assert.match(url, /\?x=.*&y=.*&s=inflate$/);
  await page.close();

  page = await open(url);
  assert.equal((await frame(page, "android.os.Handler.dispatchMessage")).width, 1180);
  assert.equal((await frame(page, "RenderThread")).shown, false);
  assert.equal(+(await page.getAttribute("#matched", "data-pct")), zoomedShare);
  // matched share is of the zoomed frame: larger than of the whole graph
  assert.ok(zoomedShare > expectedShare(/inflate/));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The tooltips of a static SVG (--no-javascript), written by the C side:
// what the script must rebuild from the name table and the frames' data.
function staticTitles(args) {
  const svg = execFileSync(cli, ["--no-javascript", ...args]).toString();
  const frames = svg.slice(svg.indexOf('<g id="frames">'));
  const ents = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
  return [...frames.matchAll(/<title>(.*?)<\/title>/gs)]
    .map((m) => m[1].replace(/&(lt|gt|amp|quot|apos);/g, (_, e) => ents[e]));
}

// A pprof profile written field by field: main calls memcpy, found in two
// libraries (mappings libart.so and libc.so), and free (libc.so): native
// frames whose tooltips name their libraries.
function nativeProfile(path) {
  const varint = (v) => { const b = []; do { b.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); v = Math.floor(v / 128); } while (v); return b; };
  const int = (f, v) => [...varint(f << 3), ...varint(v)];
  const msg = (f, bytes) => [...varint((f << 3) | 2), ...varint(bytes.length), ...bytes];
  const str = (f, s) => msg(f, [...Buffer.from(s)]);
  const p = [
    ...msg(1, [...int(1, 1), ...int(2, 2)]),                    // samples/count
    ...msg(2, [...int(1, 2), ...int(1, 1), ...msg(2, [3])]),    // memcpy (libart) <- main: 3
    ...msg(2, [...int(1, 3), ...int(1, 1), ...msg(2, [2])]),    // memcpy (libc) <- main: 2
    ...msg(2, [...int(1, 1), ...msg(2, [1])]),                  // main: 1
    ...msg(2, [...int(1, 4), ...int(1, 1), ...msg(2, [1])]),    // free (libc) <- main: 1
    ...msg(3, [...int(1, 1), ...int(5, 5)]),
    ...msg(3, [...int(1, 2), ...int(5, 6)]),
    ...msg(4, [...int(1, 1), ...msg(4, int(1, 1))]),
    ...msg(4, [...int(1, 2), ...int(2, 1), ...msg(4, int(1, 2))]),
    ...msg(4, [...int(1, 3), ...int(2, 2), ...msg(4, int(1, 2))]),
    ...msg(4, [...int(1, 4), ...int(2, 2), ...msg(4, int(1, 3))]),
    ...msg(5, [...int(1, 1), ...int(2, 3)]),
    ...msg(5, [...int(1, 2), ...int(2, 4)]),
    ...msg(5, [...int(1, 3), ...int(2, 7)]),
    ...["", "samples", "count", "main", "memcpy", "/apex/lib64/libart.so", "libc.so", "free"].flatMap((s) => str(6, s)),
  ];
  writeFileSync(path, Buffer.from(p));
  return path;
}

// Inputs that exercise every part of a tooltip: times and calls, counts with
// a unit and a factor, differential changes either way, percentages that
// are exact ties (0.125%: printf rounds to even), hostile names, and frames
// wrapped in --nameattr links.
function tooltipCases() {
  const hostile = `${tmp}/hostile.folded`, diff = `${tmp}/diff.folded`;
  const attrs = `${tmp}/attrs.txt`, native = nativeProfile(`${tmp}/native.pb`);
  writeFileSync(hostile, Buffer.concat([
    Buffer.from("main;<init>&\"q'\x01]]>x 1\n"),
    Buffer.from([0x6d, 0x3b, 0xff, 0xfe, 0x20, 0x37, 0x0a]), // "m;\xff\xfe 7"
    Buffer.from("main;a\u2028b</script>\\ 792\n")]));
  writeFileSync(diff, "m;grew 10 16\nm;shrank 9 6\nm;same 4 4\nm;gone 3 0\n");
  // flamegraph.pl's: counts with decimals, shares of the count as shown,
  // lines of one count among differential ones, frames drawn twice
  const fg = `${tmp}/fg.folded`, mixed = `${tmp}/mixed.folded`;
  writeFileSync(fg, "a;b 1.5\nc 2.5\nd;e;f 3\nd;e 1\nd;e-x 2\ng 0.125\n");
  writeFileSync(mixed, "a 10 12\nc 2\nd;e 1 1\nd;f 3\n");
  // a diff of two profiles whose counts have decimals
  const fg2 = `${tmp}/fg2.folded`;
  writeFileSync(fg2, "a;b 2.25\nc 1\nd;e;f 3.5\nh 1000.5\n");
  writeFileSync(attrs, "main\thref=https://example.com/?a=1&b=2\tclass=x\n" +
                      "m\tdata-k=v\ttitle=Given <tip> & \"more\"\n");
  return [
    ["trace", [`${samples}/app.trace`]],
    ["hostile names", [hostile]],
    ["counts", ["--countname", "bytes", "--factor", "1.5", hostile]],
    ["differential", [diff]],
    ["negated", ["--negate", diff]],
    ["nameattr", ["--nameattr", attrs, hostile]],
    ["flame chart", ["--flamechart", diff]],
    ["fractions", [fg]],
    ["factor", ["--factor", "2.5", fg]],
    ["one count among two", [mixed]],
    ["one count among two, negated, factor", ["--negate", "--factor", "3", mixed]],
    ["diff of two profiles with decimals", ["--diff", fg, fg2]],
    ["diff of two profiles with decimals, factor", ["--factor", "2", "--diff", fg2, fg]],
    ["native frames' libraries", [native]],
    ["diff of two profiles with libraries", ["--diff", native, native]],
  ];
}

test("tooltips are rebuilt exactly as the static SVG's titles", { skip: why || false }, async () => {
  const native = `${tmp}/native.pb`;
  for (const [what, args] of tooltipCases()) {
    const want = staticTitles(args), file = `${tmp}/tips.svg`;
    execFileSync(cli, ["-o", file, ...args]);
    const page = await open(pathToFileURL(file).href);
    const got = await page.evaluate(() => window.aflame.frames.map((f) => window.aflame.tip(f)));
    assert.ok(want.length > 3, `${what}: ${want.length} frames`);
    if (args.includes(native))
      assert.ok(want.some((t) => t.startsWith("memcpy in libart.so, libc.so (5 samples")), what);
    assert.deepEqual(got, want, what);
    assert.deepEqual(page.errors, [], what);
    await page.close();
  }
});

test("hovering a frame shows its details and a native tooltip", { skip: why || false }, async () => {
  const want = staticTitles([`${samples}/app.trace`]);
  const page = await open(pathToFileURL(svgPath).href);
  const name = "com.example.shop.MainActivity.onCreate";
  const at = await page.evaluate((n) => window.aflame.frames.findIndex((f) => f.name === n), name);
  const title = want[at];
  assert.match(title, /^com\.example\.shop\.MainActivity\.onCreate \(110\.6 ms, 15\.53%, 30 calls\)$/);
  const f = await frame(page, name);
  // no <title> in the file: the first hover makes it
  assert.equal(await page.evaluate(() => document.querySelectorAll("#frames title").length), 0);
  await page.mouse.move(f.x + f.w - 2, f.y + f.h / 2);
  assert.equal(await page.textContent("#details"), title);
  const tip = await page.evaluate((i) => {
    const t = window.aflame.frames[i].g.firstElementChild;
    return t.tagName === "title" ? t.textContent : null;
  }, at);
  assert.equal(tip, title);
  // over the label too
  await page.mouse.move(f.x + 8, f.y + f.h / 2);
  assert.equal(await page.textContent("#details"), title);
  await page.mouse.move(2, 2);
  assert.equal(await page.textContent("#details"), " ");
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Without a script (an <img>, a viewer that runs none) the interactive SVG
// must look like the static one: labels are text, rect heights come from
// the style sheet.
test("as an <img>, the frames look exactly as the static SVG's", { skip: why || false }, async () => {
  const staticPath = `${tmp}/static.svg`;
  execFileSync(cli, ["--no-javascript", "-o", staticPath, `${samples}/app.trace`]);
  const page = await browser.newPage({ viewport: { width: 1200, height: 300 } });
  const shots = [];
  for (const file of [svgPath, staticPath]) {
    const html = `${file}.html`;
    writeFileSync(html, `<!doctype html><body style="margin:0"><img src="${pathToFileURL(file).href}">`);
    await page.goto(pathToFileURL(html).href);
    await page.waitForFunction(() => document.images[0].complete && document.images[0].naturalWidth > 0);
    // under the title and buttons, over the details line
    shots.push(await page.screenshot({ clip: { x: 0, y: 30, width: 1200, height: 270 - 30 - 34 } }));
  }
  // (a rect without its height would not be drawn at all)
  assert.ok(shots[0].equals(shots[1]), "the interactive SVG's frames differ from the static SVG's");
  await page.close();
});

test("--no-javascript writes a static image", { skip: why || false }, async () => {
  const out = execFileSync(cli, ["--no-javascript", `${samples}/app.trace`]).toString();
  assert.ok(!out.includes("<script"));
  assert.ok(out.includes("<title>"));
});

test("an icicle graph zooms too (depth read from the top)", { skip: why || false }, async () => {
  const icicle = `${tmp}/icicle.svg`;
  execFileSync(cli, ["--inverted", "-o", icicle, `${samples}/app.trace`]);
  const page = await open(pathToFileURL(icicle).href);
  const name = "android.os.Handler.dispatchMessage";
  const f = await frame(page, name);
  await page.mouse.click(f.x + f.w / 2, f.y + f.h / 2);
  assert.equal((await frame(page, name)).width, 1180);
  const parent = await frame(page, "android.os.Looper.loop");
  assert.ok(parent.faded && parent.width === 1180);
  assert.equal((await frame(page, "RenderThread")).shown, false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// --nameattr keeps flamegraph.pl's attributes that describe and drops
// what runs script: hovering and clicking every frame of a graph made
// from a hostile attribute file opens no dialog.  (Attributes that would
// make the SVG invalid are test_namemap's: the page would not load.)
test("a --nameattr file cannot run script", { skip: why || false }, async () => {
  const folded = `${tmp}/script.folded`, attrs = `${tmp}/script-attrs.txt`;
  const file = `${tmp}/script.svg`;
  writeFileSync(folded, "root;a 3\nroot;b 2\nroot;c;d 2\nroot;e 1\n");
  writeFileSync(attrs, [
    "root\tonmouseover=alert(1)\tclass=r",
    "a\tONMOUSEOVER=alert(2)\tonclick=alert(3)\thref=javascript:alert(4)",
    "b\tg_extra=onmouseover=\"alert(5)\" style=\"fill:#00f\"\txlink:href=JaVaScRiPt:alert(6)",
    "c\thref=&#106;avascript:alert(7)\ta_extra=onclick=\"alert(8)\"\tonfocus=alert(9)",
    "d\thref= java\rscript:alert(10)\tstyle=background:url(javascript:alert(11))",
    "e\thref=data:text/html,<script>alert(12)</script>\tclass=e",
  ].join("\n") + "\n");
  execFileSync(cli, ["--nameattr", attrs, "-o", file, folded], { stdio: "pipe" });
  const page = await browser.newPage({ viewport: { width: 1300, height: 400 } });
  const dialogs = [];
  page.on("dialog", async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.aflame && window.aflame.frames.length > 0);
  const names = await page.evaluate(() => window.aflame.frames.map((f) => f.name));
  assert.deepEqual(names.slice().sort(), ["a", "all", "b", "c", "d", "e", "root"]);
  for (const name of names) {
    const f = await frame(page, name);
    await page.mouse.move(f.x + f.w / 2, f.y + f.h / 2);
    await page.mouse.click(f.x + f.w / 2, f.y + f.h / 2);
    await page.keyboard.press("Tab");
  }
  await page.keyboard.press("Escape");
  assert.deepEqual(dialogs, [], "script from --nameattr ran");
  // nothing that could run is left in the document either
  const found = await page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll("*")) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name) ||
            /^\s*(javascript|data|vbscript):/i.test(a.value.replace(/[\t\n\r]/g, "")))
          bad.push(`${el.tagName} ${a.name}=${a.value}`);
      }
    }
    return bad;
  });
  assert.deepEqual(found, []);
  assert.deepEqual(errors, []);
  // what describes is kept
  assert.equal(await page.evaluate(() => window.aflame.frames.find((f) => f.name === "b")
    .g.style.fill), "rgb(0, 0, 255)");
  assert.equal(await page.evaluate(() => window.aflame.frames.find((f) => f.name === "e")
    .g.getAttribute("class")), "e");
  await page.close();
});

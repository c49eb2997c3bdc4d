// screenshot.mjs - a PNG of a page as Debian's Chromium draws it, for the
// README's picture of a per-thread set's index page (samples/render.sh).
//
//   node samples/screenshot.mjs PAGE.html OUT.png WIDTH HEIGHT
// (PAGE may also be an http:// URL: the pages of `aflame-render serve`)
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { why, launch } from "../tests/browser/launch.mjs";

const [page, out, width, height] = process.argv.slice(2);
if (!height) {
  console.error("usage: node samples/screenshot.mjs PAGE.html OUT.png WIDTH HEIGHT");
  process.exit(2);
}
if (why) {
  console.error(`screenshot.mjs: ${why}`);
  process.exit(1);
}
const browser = await launch();
try {
  const tab = await browser.newPage({ viewport: { width: +width, height: +height } });
  await tab.goto(/^https?:/.test(page) ? page : pathToFileURL(resolve(page)).href);
  await tab.waitForLoadState("load");
  await tab.screenshot({ path: out });
} finally {
  await browser.close();
}

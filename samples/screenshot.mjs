// screenshot.mjs - a PNG of a page as Debian's Chromium draws it, for the
// README's pictures of a per-thread set's index page and of the HTML
// profile (samples/render.sh).  FRAGMENT (e.g. "#m5") is added to the
// page's URL: the profile then opens that method (seen from the page's top).
//
//   node samples/screenshot.mjs PAGE.html OUT.png WIDTH HEIGHT [FRAGMENT]
// (PAGE may also be an http:// URL: the pages of `aflame-render serve`)
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { why, launch } from "../tests/browser/launch.mjs";

const [page, out, width, height, fragment = ""] = process.argv.slice(2);
if (!height) {
  console.error("usage: node samples/screenshot.mjs PAGE.html OUT.png WIDTH HEIGHT [FRAGMENT]");
  process.exit(2);
}
if (why) {
  console.error(`screenshot.mjs: ${why}`);
  process.exit(1);
}
const browser = await launch();
try {
  const tab = await browser.newPage({ viewport: { width: +width, height: +height } });
  await tab.goto((/^https?:/.test(page) ? page : pathToFileURL(resolve(page)).href) + fragment);
  await tab.waitForLoadState("load");
  // the method the fragment opened stays open; the picture starts at the
  // page's top, with its heading and filter box
  await tab.evaluate(() => window.scrollTo(0, 0));
  await tab.screenshot({ path: out });
} finally {
  await browser.close();
}

// The arbiter's console in headless Chromium (Debian's chromium, driven by puppeteer-core): run by
// services/console/console_browser_test.sh, which starts arbiterd, the games and the players, and
// passes what it made in the environment. Exit 0 when every check holds; the first failure
// otherwise, with the page's error box and the server's words.
//
//   CONSOLE_URL      the console (arbiterd --console_address)
//   EVENT            the event the games belong to
//   ARBITER_TOKEN    an arbiter token scoped to EVENT
//   OTHER_TOKEN      an arbiter token scoped to another event
//   PLAYER_TOKEN     a player's token of EVENT
//   CLAIM_COMMAND    JSON array: the player's 10.2 claim through gRPC (arbiterctl ...)
//   ARBITERCTL       JSON array: arbiterctl with --server and an arbiter's --token (gRPC)
//   CLAIM_GAME       the game the claim is made in; GAMES: every game of EVENT, comma-separated
//   SCREENSHOT       where the queue's screenshot goes
//   CHROMIUM         the browser binary
"use strict";
const { execFileSync, execFile } = require("child_process");
const puppeteer = require("puppeteer-core");

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
  console.log(`ok: ${what}`);
}

function arbiterctl(...args) {
  const [cmd, ...prefix] = JSON.parse(env("ARBITERCTL"));
  return execFileSync(cmd, [...prefix, ...args], { encoding: "utf8" });
}

function game(id) {
  return JSON.parse(arbiterctl("game", "get", "--game", id, "--json"));
}

async function signIn(page, event, token) {
  await page.$eval("#event", (e, v) => { e.value = v; }, event);
  await page.$eval("#token", (e, v) => { e.value = v; }, token);
  await page.click("#login-button");
}

async function errorText(page) {
  await page.waitForSelector("#error:not([hidden])", { timeout: 5000 });
  return page.$eval("#error", (e) => e.textContent);
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: env("CHROMIUM"),
    headless: true,
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--disable-extensions"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const violations = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
    });
    page.on("pageerror", (e) => violations.push(String(e)));

    const response = await page.goto(env("CONSOLE_URL"), { waitUntil: "networkidle0" });
    const headers = response.headers();
    check(response.status() === 200, "the page is served at /");
    const csp = headers["content-security-policy"] || "";
    check(csp.includes("default-src 'none'") && csp.includes("script-src 'self'") &&
          csp.includes("frame-ancestors 'none'"), `a strict Content-Security-Policy (${csp})`);
    check(headers["x-content-type-options"] === "nosniff", "X-Content-Type-Options: nosniff");
    check(headers["referrer-policy"] === "no-referrer", "Referrer-Policy: no-referrer");
    check((headers["cache-control"] || "").includes("no-store"), "Cache-Control: no-store");

    const event = env("EVENT");
    // A player's token is refused, and so is another event's arbiter token: the precise error.
    await signIn(page, event, env("PLAYER_TOKEN"));
    let text = await errorText(page);
    check(/ERR_PERMISSION_DENIED/.test(text), `a player's token is refused: "${text}"`);
    check(await page.$eval("#console", (e) => e.hidden), "the console stays closed to a player");
    await signIn(page, event, env("OTHER_TOKEN"));
    await page.waitForFunction(
        (before) => document.querySelector("#error").textContent !== before, { timeout: 5000 }, text);
    text = await errorText(page);
    check(/ERR_OTHER_EVENT/.test(text), `another event's arbiter token is refused: "${text}"`);
    check(await page.evaluate(() => document.cookie === ""), "no cookie is set");

    // The arbiter of the event signs in: the games appear.
    await signIn(page, event, env("ARBITER_TOKEN"));
    await page.waitForSelector("#console:not([hidden])", { timeout: 5000 });
    const games = env("GAMES").split(",");
    await page.waitForFunction((n) => document.querySelectorAll("#games li.game").length === n,
                               { timeout: 5000 }, games.length);
    check(true, `the event's ${games.length} games are shown with their boards`);
    check(await page.evaluate(() => sessionStorage.getItem("arbiter.token") !== null),
          "the token is kept in sessionStorage");
    // Keyboard: the first action reached by Tab is a button with a name.
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => document.activeElement.tagName);
    check(focused === "BUTTON" || focused === "INPUT", `Tab reaches the controls (${focused})`);

    // A clock ticks on the page between polls.
    const claimGame = env("CLAIM_GAME");
    const clockOf = () => page.$eval(`#games li[data-game="${claimGame}"] .clocks`, (e) => e.textContent);
    const c1 = await clockOf();
    await new Promise((r) => setTimeout(r, 1300));
    const c2 = await clockOf();
    check(c1 !== c2, `the running clock ticks (${c1} -> ${c2})`);

    // The player claims under 10.2 through gRPC; the call is in the queue within a second.
    const [cmd, ...args] = JSON.parse(env("CLAIM_COMMAND"));
    await new Promise((resolve, reject) =>
      execFile(cmd, args, (err, out, errOut) => (err && err.code !== 1 ? reject(new Error(errOut)) : resolve(out))));
    const claimed = Date.now();
    const selector = `#queue li[data-game="${claimGame}"][data-kind="ARBITER_CALL_KIND_CLAIM"]`;
    await page.waitForSelector(selector, { timeout: 1000 });
    const seenAfter = Date.now() - claimed;
    check(seenAfter <= 1000, `the 10.2 claim is in the queue ${seenAfter} ms after it was made`);
    const item = await page.$eval(selector, (e) => e.textContent);
    check(/10\.2/.test(item) && /advice/i.test(item), `the call shows the article and the engine's advice`);
    const queue = await page.$("#queue-section");
    await queue.screenshot({ path: env("SCREENSHOT") });
    check(true, `the queue's screenshot is kept (${env("SCREENSHOT")})`);

    // The arbiter rejects the claim (10.2c) from the page, by keyboard.
    await page.focus(`${selector} button.reject`);
    await page.keyboard.press("Enter");
    await page.waitForFunction((s) => !document.querySelector(s), { timeout: 3000 }, selector);
    const after = game(claimGame);
    check(after.status === "ongoing", `the game goes on after the rejection (${after.status})`);
    // The PGN shows the ruling, with the arbiter as the actor.
    await page.click(`#games li[data-game="${claimGame}"] button.game-title`);
    await page.click("#do-pgn");
    await page.waitForFunction(() => document.querySelector("#pgn").textContent.length > 0,
                               { timeout: 3000 });
    const pgn = await page.$eval("#pgn", (e) => e.textContent);
    check(/10\.2/.test(pgn) && /arbiter/i.test(pgn), "the PGN records the claim and the arbiter's ruling");

    // An event pause from the page stops every clock of the event.
    await page.click("#pause-event");
    await page.waitForFunction(() => /paused/.test(document.querySelector("#notice").textContent),
                               { timeout: 3000 });
    const first = games.map(game);
    await new Promise((r) => setTimeout(r, 400));
    const second = games.map(game);
    for (let i = 0; i < games.length; i++) {
      check(first[i].paused === true, `${games[i]} is paused`);
      check(first[i].white_ms === second[i].white_ms && first[i].black_ms === second[i].black_ms,
            `${games[i]}'s clocks stand still (${first[i].white_ms}/${first[i].black_ms})`);
    }
    const pgn2 = arbiterctl("game", "pgn", "--game", claimGame);
    check(/6\.13/.test(pgn2) || /pause/i.test(pgn2), "the PGN shows the arbiter's pause");
    check(violations.length === 0, `no Content-Security-Policy violation or page error (${violations.join("; ")})`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(`FAIL: ${e.message}`);
  process.exit(1);
});

// The arbiter's console: signs in with an event-scoped arbiter token, polls the event's queue and
// games (ListArbiterCalls, every 500 ms), ticks the clocks between polls, and sends the arbiter's
// actions through the existing RPCs, each with its own command id. Every failure is shown with
// its stable code and the server's message.
import { ApiError, call, commandId, session, signIn, signOut } from "./api.js";
import { boardSvg } from "./board.js";
import { clocksNow, formatMs, parseHms } from "./clock.js";

const POLL_MS = 500;
const $ = (id) => document.getElementById(id);

const KIND = {
  ARBITER_CALL_KIND_CLAIM: "Claim awaiting a ruling",
  ARBITER_CALL_KIND_STOP: "Clocks stopped by a player",
  ARBITER_CALL_KIND_ILLEGAL_MOVE: "Illegal move claimed",
  ARBITER_CALL_KIND_IRREGULARITY: "Irregularity",
  ARBITER_CALL_KIND_FLAG_REVIEW: "Flag under review",
  ARBITER_CALL_KIND_ADJOURNED: "Adjourned game",
  ARBITER_CALL_KIND_RESULT_TO_CONFIRM: "Result to confirm",
};
const STATUS = {
  GAME_STATUS_CREATED: "not started",
  GAME_STATUS_ONGOING: "in play",
  GAME_STATUS_AWAITING_RULING: "awaiting a ruling",
  GAME_STATUS_ENDED: "over",
  GAME_STATUS_ADJOURNED: "adjourned",
};
const RESULT = {
  RESULT_WHITE_WINS: "1-0",
  RESULT_BLACK_WINS: "0-1",
  RESULT_DRAW: "½-½",
  RESULT_ANNULLED: "annulled",
  RESULT_DOUBLE_FORFEIT: "0-0",
};

const state = { games: new Map(), received: 0, selected: "", timer: 0, version: "" };

function showError(error) {
  const box = $("error");
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = error instanceof ApiError
    ? `${error.code || "HTTP " + error.httpStatus}: ${error.message}`
    : String(error.message || error);
}

function notice(text) {
  $("notice").textContent = text;
}

function button(label, onClick, className) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  if (className) b.className = className;
  b.addEventListener("click", onClick);
  return b;
}

// One action: the RPC, then a fresh poll so the queue and the board show its effect at once.
async function act(method, body, done) {
  try {
    const reply = await call(method, { commandId: commandId(), ...body });
    showError(null);
    notice(done);
    await poll();
    return reply;
  } catch (e) {
    showError(e);
    return null;
  }
}

function reasonOr(id, fallback) {
  const v = $(id).value.trim();
  return v || fallback;
}

function actionsFor(item) {
  const g = item.gameId;
  const out = [];
  switch (item.kind) {
    case "ARBITER_CALL_KIND_CLAIM":
      out.push(button("Draw (10.2a)", () => act("Rule", { gameId: g, decision: "RULING_DECISION_DRAW" }, `${g}: ruled a draw`)));
      out.push(button("Postpone (10.2b)", () => act("Rule", { gameId: g, decision: "RULING_DECISION_POSTPONE" }, `${g}: ruling postponed`)));
      out.push(button("Reject (10.2c)", () => act("Rule", { gameId: g, decision: "RULING_DECISION_REJECT" }, `${g}: claim rejected`), "reject"));
      break;
    case "ARBITER_CALL_KIND_ILLEGAL_MOVE":
      out.push(button("Uphold (7.4a)", () => act("Rule", { gameId: g, decision: "RULING_DECISION_UPHOLD" }, `${g}: illegal move upheld`)));
      out.push(button("Reject", () => act("Rule", { gameId: g, decision: "RULING_DECISION_REJECT" }, `${g}: claim rejected`), "reject"));
      break;
    case "ARBITER_CALL_KIND_STOP":
      out.push(button("Valid stop (6.13d)", () => act("RuleStop", { gameId: g, valid: true, reason: "the arbiter finds the stop justified" }, `${g}: stop ruled valid`)));
      out.push(button("No valid reason (13.4a)", () => act("RuleStop", { gameId: g, valid: false, penalty: "13.4a", reason: "no valid reason to stop the clocks" }, `${g}: warned`), "reject"));
      break;
    case "ARBITER_CALL_KIND_IRREGULARITY":
      out.push(button("Resume", () => act("ResumeGame", { gameId: g, reason: "the arbiter restarts the clocks" }, `${g}: resumed`)));
      break;
    case "ARBITER_CALL_KIND_ADJOURNED":
      out.push(button("Open the envelope (A9)", () => act("ResumeAdjournedGame", { gameId: g }, `${g}: resumed`)));
      break;
    default:
      break;
  }
  out.push(button("Open the game", () => select(g), "open"));
  return out;
}

function renderQueue(calls) {
  const list = $("queue");
  list.replaceChildren();
  $("queue-count").textContent = calls.length ? `(${calls.length})` : "";
  $("queue-empty").hidden = calls.length > 0;
  for (const item of calls) {
    const li = document.createElement("li");
    li.className = `call ${item.kind.toLowerCase().replace("arbiter_call_kind_", "")}`;
    li.dataset.game = item.gameId;
    li.dataset.kind = item.kind;
    const head = document.createElement("h3");
    head.textContent = `${KIND[item.kind] || item.kind} — ${item.gameId} (art. ${item.article})`;
    li.appendChild(head);
    const p = document.createElement("p");
    const since = Number(item.sinceMs || 0);
    p.textContent = `${item.summary}${since ? ` · since ${new Date(since).toLocaleTimeString()}` : ""}`;
    li.appendChild(p);
    if (item.advice) {
      const a = document.createElement("p");
      a.className = "advice";
      a.textContent = `Engine's advice: ${item.advice}`;
      li.appendChild(a);
    }
    if (item.proof) {
      const a = document.createElement("p");
      a.className = "proof";
      a.textContent = `Proof: ${item.proof}`;
      li.appendChild(a);
    }
    const actions = document.createElement("div");
    actions.className = "call-actions";
    actions.append(...actionsFor(item));
    li.appendChild(actions);
    list.appendChild(li);
  }
}

function statusText(game) {
  let s = STATUS[game.status] || game.status || "";
  if (game.paused) s += ", clocks stopped";
  if (game.outcome && RESULT[game.outcome.result]) {
    s += ` ${RESULT[game.outcome.result]}${game.outcome.article ? ` (${game.outcome.article})` : ""}`;
  }
  return s;
}

function renderGames(games) {
  const list = $("games");
  const ids = games.map((g) => g.gameId).join(",");
  if (ids !== state.version) {
    // The games changed: rebuild the cards (kept otherwise, so focus stays where it was).
    list.replaceChildren();
    for (const g of games) {
      const li = document.createElement("li");
      li.className = "game";
      li.dataset.game = g.gameId;
      const title = document.createElement("h3");
      title.appendChild(button(g.gameId, () => select(g.gameId), "game-title"));
      li.appendChild(title);
      const board = document.createElement("div");
      board.className = "board-box";
      li.appendChild(board);
      const clocks = document.createElement("p");
      clocks.className = "clocks";
      li.appendChild(clocks);
      const status = document.createElement("p");
      status.className = "status";
      li.appendChild(status);
      list.appendChild(li);
    }
    state.version = ids;
  }
  for (const g of games) {
    const li = list.querySelector(`li[data-game="${CSS.escape(g.gameId)}"]`);
    if (!li) continue;
    if (li.dataset.fen !== g.fen) {
      li.dataset.fen = g.fen;
      const names = `${g.whiteName || g.whiteId || "White"} – ${g.blackName || g.blackId || "Black"}`;
      li.querySelector(".board-box").replaceChildren(boardSvg(g.fen, `${g.gameId}: ${names}, ${g.fen}`));
    }
    li.querySelector(".status").textContent = statusText(g);
  }
  tick();
}

// The clocks between polls (requestAnimationFrame would stop in a hidden tab; 200 ms is enough).
function tick() {
  const now = performance.now();
  for (const li of $("games").children) {
    const g = state.games.get(li.dataset.game);
    if (!g) continue;
    const { white, black } = clocksNow(g, state.received, now);
    const run = g.clockRunning;
    li.querySelector(".clocks").textContent =
      `White ${formatMs(white)}${run === "COLOR_WHITE" ? " ▸" : ""} · Black ${formatMs(black)}${run === "COLOR_BLACK" ? " ▸" : ""}`;
    li.classList.toggle("running", run === "COLOR_WHITE" || run === "COLOR_BLACK");
  }
  renderPanel(false);
}

function renderPanel(reset) {
  const g = state.games.get(state.selected);
  $("game-panel").hidden = !g;
  if (!g) return;
  $("panel-title").textContent = `Game ${g.gameId}: ${g.whiteName || g.whiteId} – ${g.blackName || g.blackId}`;
  const { white, black } = clocksNow(g, state.received, performance.now());
  $("panel-status").textContent =
    `${statusText(g)} · White ${formatMs(white)} · Black ${formatMs(black)} · ${g.timeControl || ""} · round ${g.round || "-"} · version ${g.version}`;
  if (reset) $("pgn").textContent = "";
}

function select(gameId) {
  state.selected = gameId;
  renderPanel(true);
  $("panel-title").setAttribute("tabindex", "-1");
  $("panel-title").focus();
}

async function poll() {
  const { event } = session();
  try {
    const reply = await call("ListArbiterCalls", { event });
    state.received = performance.now();
    state.games = new Map((reply.games || []).map((g) => [g.gameId, g]));
    renderQueue(reply.calls || []);
    renderGames(reply.games || []);
    return true;
  } catch (e) {
    showError(e);
    if (e instanceof ApiError && (e.httpStatus === 401 || e.httpStatus === 403)) stop();
    return false;
  }
}

function stop() {
  clearInterval(state.timer);
  clearInterval(state.ticker);
  state.timer = 0;
}

async function start() {
  const { event, token } = session();
  if (!event || !token) {
    $("login").hidden = false;
    $("console").hidden = true;
    $("signout").hidden = true;
    $("event").focus();
    return;
  }
  $("who").textContent = `Event ${event}`;
  if (await poll()) {
    showError(null);
    $("login").hidden = true;
    $("console").hidden = false;
    $("signout").hidden = false;
    stop();
    state.timer = setInterval(poll, POLL_MS);
    state.ticker = setInterval(tick, 200);
  } else {
    $("login").hidden = false;
    $("console").hidden = true;
  }
}

// 6.13a for the whole event: one audited call (PauseEvent / ResumeEvent); a server without it
// (ERR_NO_SUCH_METHOD) gets the same as one call per game of the event that it concerns.
async function eventWide(method, perGame, concerns, reason, done) {
  const event = session().event;
  try {
    await call(method, { event, commandId: commandId(), reason });
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== "ERR_NO_SUCH_METHOD") {
      showError(e);
      return;
    }
    try {
      for (const g of state.games.values()) {
        if (concerns(g)) await call(perGame, { gameId: g.gameId, commandId: commandId(), reason });
      }
    } catch (e2) {
      showError(e2);
      return;
    }
  }
  showError(null);
  notice(done);
  await poll();
}

function gameAction(method, body, done) {
  if (!state.selected) return null;
  return act(method, { gameId: state.selected, ...body }, `${state.selected}: ${done}`);
}

function time(id) {
  const ms = parseHms($(id).value);
  if (Number.isNaN(ms)) {
    showError(new Error(`${$(id).value} is not hh:mm:ss`));
    return null;
  }
  return ms;
}

function wire() {
  $("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    signIn($("event").value.trim(), $("token").value.trim());
    $("token").value = "";
    start();
  });
  $("signout").addEventListener("click", () => {
    stop();
    signOut();
    state.selected = "";
    start();
  });
  $("pause-event").addEventListener("click", () =>
    eventWide("PauseEvent", "PauseGame", (g) => !g.paused && g.status === "GAME_STATUS_ONGOING",
              reasonOr("event-reason", "the arbiter interrupts the event"), "the event is paused"));
  $("resume-event").addEventListener("click", () =>
    eventWide("ResumeEvent", "ResumeGame", (g) => g.paused && g.status === "GAME_STATUS_ONGOING",
              reasonOr("event-reason", "the arbiter resumes the event"), "the event is resumed"));
  $("do-pause").addEventListener("click", () =>
    gameAction("PauseGame", { reason: reasonOr("pause-reason", "the arbiter stops the clocks") }, "paused"));
  $("do-resume").addEventListener("click", () =>
    gameAction("ResumeGame", { reason: reasonOr("pause-reason", "") }, "resumed"));
  $("do-adjust").addEventListener("click", () => {
    const ms = time("adjust-time");
    if (ms === null) return;
    gameAction("AdjustTime", {
      side: $("adjust-side").value,
      deltaMs: String(ms * Number($("adjust-sign").value)),
      article: $("adjust-article").value,
      reason: reasonOr("adjust-reason", "the arbiter adjusts the clock"),
    }, "time adjusted");
  });
  $("do-result").addEventListener("click", () =>
    gameAction("SetResult", {
      result: $("result").value,
      article: $("result-article").value.trim(),
      reason: reasonOr("result-reason", "the arbiter sets the result"),
    }, "result set"));
  $("do-irregularity").addEventListener("click", () =>
    gameAction("RuleIrregularity", {
      article: $("irr-article").value,
      reason: reasonOr("irr-reason", "the arbiter rules on an irregularity"),
    }, "irregularity ruled"));
  $("do-power").addEventListener("click", () => {
    const power = $("power").value;
    const side = $("power-side").value;
    const reason = reasonOr("power-reason", "the arbiter's penalty (13.4)");
    if (power.startsWith("ADJUST_")) {
      const ms = time("power-time");
      if (ms === null) return;
      const article = power.slice("ADJUST_".length);
      // 13.4b: time to the offender's opponent; 13.4c: time from the offender.
      const opponent = side === "COLOR_WHITE" ? "COLOR_BLACK" : "COLOR_WHITE";
      gameAction("AdjustTime", {
        side: article === "13.4b" ? opponent : side,
        deltaMs: String(article === "13.4b" ? ms : -ms),
        article,
        reason,
      }, `penalty ${article} applied`);
      return;
    }
    gameAction("UsePower", { power, side, reason }, "penalty applied");
  });
  $("do-envelope").addEventListener("click", () => gameAction("ResumeAdjournedGame", {}, "resumed"));
  $("do-pgn").addEventListener("click", async () => {
    if (!state.selected) return;
    try {
      const reply = await call("ExportPgn", { gameId: state.selected });
      $("pgn").textContent = reply.pgn || "";
      showError(null);
    } catch (e) {
      showError(e);
    }
  });
}

wire();
start();

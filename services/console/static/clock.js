// Clocks: "hh:mm:ss" both ways, and a side's time now, ticking on this machine from the view's
// clock state (the server's instant now_ms; the running side's time falls by what elapsed since).

export function formatMs(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
}

// "1:02:03" or "02:03" -> ms; NaN when it is not one.
export function parseHms(text) {
  const parts = String(text).trim().split(":");
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => !/^\d{1,3}$/.test(p))) return NaN;
  return parts.reduce((acc, p) => acc * 60 + Number(p), 0) * 1000;
}

// The game's two clocks at this instant: `received` is when (performance.now()) the view arrived.
export function clocksNow(game, received, nowPerf) {
  const elapsed = Math.max(0, nowPerf - received);
  let white = Number(game.whiteMs || 0);
  let black = Number(game.blackMs || 0);
  if (game.clockRunning === "COLOR_WHITE") white -= elapsed;
  if (game.clockRunning === "COLOR_BLACK") black -= elapsed;
  return { white, black };
}

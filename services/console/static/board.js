// The board as SVG from a FEN's placement: squares, coordinates and each piece as a disc with its
// letter (no font glyphs needed). No framework; built with the DOM.

const NS = "http://www.w3.org/2000/svg";
const NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };

function element(name, attributes, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

export function boardSvg(fen, label) {
  const size = 8 * 24 + 12;
  const svg = element("svg", { viewBox: `0 0 ${size} ${size}`, class: "board", role: "img",
                               "aria-label": label });
  const rows = (fen || "8/8/8/8/8/8/8/8").split(" ")[0].split("/");
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      svg.appendChild(element("rect", { x: 12 + f * 24, y: r * 24, width: 24, height: 24,
                                        class: (r + f) % 2 ? "dark" : "light" }));
    }
    svg.appendChild(element("text", { x: 4, y: r * 24 + 16, class: "coord" }, String(8 - r)));
  }
  for (let f = 0; f < 8; f++) {
    svg.appendChild(element("text", { x: 12 + f * 24 + 9, y: 8 * 24 + 10, class: "coord" },
                            "abcdefgh"[f]));
  }
  rows.forEach((row, r) => {
    let f = 0;
    for (const c of row) {
      if (c >= "1" && c <= "8") {
        f += Number(c);
        continue;
      }
      const white = c === c.toUpperCase();
      const g = element("g", { class: white ? "piece white" : "piece black" });
      g.appendChild(element("title", {}, `${white ? "White" : "Black"} ${NAMES[c.toLowerCase()] || c}`));
      g.appendChild(element("circle", { cx: 12 + f * 24 + 12, cy: r * 24 + 12, r: 9 }));
      g.appendChild(element("text", { x: 12 + f * 24 + 12, y: r * 24 + 16, "text-anchor": "middle" },
                            c.toUpperCase()));
      svg.appendChild(g);
      f += 1;
    }
  });
  return svg;
}

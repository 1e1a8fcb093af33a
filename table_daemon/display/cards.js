// Card faces and the words of the game (掼蛋 牌面与术语), shared by the display pages and the commentators' view.
// Cards are drawn as SVG (crisp at any size): rank and suit in the corners, a large pip in the middle, 大王/小王
// as jokers, the level card marked 级 and the heart level card (the wild, 逢人配) marked 配; a wild in a play
// shows what it stood for. Ranks are written as people say them: 10, not T. Plays are named in the rule
// documents' terms (单张, 对子, 三同张, 三带对, 顺子, 三连对, 三同连张, 炸弹, 同花顺, 四大天王; not the
// nicknames 木板, 钢板, 火箭), Chinese first, English beside.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SUIT = { S: { sym: "♠", color: "black", zh: "黑桃" }, H: { sym: "♥", color: "red", zh: "红心" },
  C: { sym: "♣", color: "black", zh: "梅花" }, D: { sym: "♦", color: "red", zh: "方块" } };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
const SEAT = { S: { zh: "南", en: "S" }, E: { zh: "东", en: "E" }, N: { zh: "北", en: "N" }, W: { zh: "西", en: "W" } };
const PLAY_ORDER = ["S", "E", "N", "W"];
const PLACES = ["", "上游 1st", "二游 2nd", "三游 3rd", "下游 last"];
const PLAY_NAMES = {
  single: ["单张", "single"], pair: ["对子", "pair"], triple: ["三同张", "three of a kind"],
  full_house: ["三带对", "full house"], straight: ["顺子", "straight"], tube: ["三连对", "three consecutive pairs"],
  plate: ["三同连张", "two consecutive triples"], bomb: ["炸弹", "bomb"], straight_flush: ["同花顺", "straight flush"],
  four_jokers: ["四大天王", "four jokers"],
};
const SEQ_LEN = { straight: 5, straight_flush: 5, tube: 3, plate: 2 };
const SEQ_COPIES = { straight: 1, straight_flush: 1, tube: 2, plate: 3 };
const REST = { single: 1, pair: 2, triple: 3 };

/** "10" for T, "大王"/"小王" for the jokers, else the rank character. */
function rankWord(r) {
  if (r === "T") return "10";
  if (r === "HR") return "大王";
  if (r === "SB") return "小王";
  return r;
}

function seatWord(s) { return SEAT[s] ? SEAT[s].zh + " " + SEAT[s].en : (s || ""); }
function teamOf(s) { return s === "N" || s === "S" ? "NS" : "EW"; }
function partnerOf(s) { return { N: "S", S: "N", E: "W", W: "E" }[s]; }

/** Parse a card code ("H5", "ST", "SB", "HR", "D9#2") into {code, suit, rank}; jokers have no suit. */
function parseCard(code) {
  const c = String(code || "").split("#")[0].toUpperCase();
  if (c === "HR" || c === "SB") return { code: c, suit: null, rank: c };
  let rank = c.slice(1);
  if (rank === "10") rank = "T";
  return { code: c[0] + rank, suit: c[0], rank };
}

/** Rank order of a natural card, 2 = 0 .. A = 12, jokers 13/14 (for sorting hands and filling sequences). */
function rankIndex(rank) {
  if (rank === "SB") return 13;
  if (rank === "HR") return 14;
  return RANKS.indexOf(rank);
}

/** Sort key of a card in a hand at this level: jokers highest, then the level cards, then A..2; wilds first
 * among the level cards, then by suit. */
function handKey(code, level) {
  const c = parseCard(code);
  if (!c.suit) return 100 + rankIndex(c.rank);
  const suitOrder = "SHCD".indexOf(c.suit);
  if (c.rank === level) return 90 + (c.suit === "H" ? 4 : 3 - suitOrder) * 0.1;
  return rankIndex(c.rank) * 4 + (3 - suitOrder) * 0.1;
}

function sortHand(codes, level) {
  return (codes || []).slice().sort((a, b) => handKey(b, level) - handKey(a, level));
}

function isWild(code, level) {
  const c = parseCard(code);
  return !!level && c.suit === "H" && c.rank === level;
}

/** What the wild cards of a play stood for: [{code, as}] ("as" is a card code such as "S9" or a rank "9"),
 * worked out from the play's reading and its natural cards. Empty when the play has no wild, or when a wild
 * is played as itself. */
function wildsStoodFor(cards, reading, level) {
  if (!reading || !level) return [];
  const wilds = [], natural = [];
  (cards || []).forEach((x) => (isWild(x, level) ? wilds : natural).push(parseCard(x)));
  if (!wilds.length) return [];
  const r = reading.rank === "10" ? "T" : reading.rank;
  let need = [];
  if (REST[reading.type]) need = Array(REST[reading.type]).fill(r);
  else if (reading.type === "bomb") need = Array(reading.size || 4).fill(r);
  else if (reading.type === "full_house") {
    need = [r, r, r];
    const other = natural.map((c) => c.rank).find((x) => x !== r);
    need.push(other || level, other || level);
  } else if (SEQ_LEN[reading.type]) {
    const start = r === "A" ? -1 : rankIndex(r);
    for (let i = 0; i < SEQ_LEN[reading.type]; i++) {
      const rk = start + i < 0 ? "A" : RANKS[start + i];
      for (let k = 0; k < SEQ_COPIES[reading.type]; k++) need.push(rk);
    }
  } else return [];
  for (const c of natural) {
    const i = need.indexOf(c.rank);
    if (i >= 0) need.splice(i, 1);
  }
  const suit = reading.type === "straight_flush" ? reading.suit : null;
  const out = [];
  wilds.forEach((w, i) => {
    const rk = need[i];
    if (!rk) return;
    const as = suit ? suit + rk : rk;
    if (rk === w.rank && (!suit || suit === "H")) return; // played as itself
    out.push({ code: w.code, as });
  });
  return out;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** One card face as an SVG element. opts: {level: "5", as: "S9" | "9" (what a wild stood for)}. */
function cardFace(code, opts) {
  const o = opts || {};
  const c = parseCard(code);
  const root = svg("svg", { viewBox: "0 0 100 140", class: "card", role: "img" });
  root.dataset.card = c.code;
  const wild = isWild(c.code, o.level);
  const levelCard = !!o.level && c.suit && c.rank === o.level;
  const color = c.suit ? SUIT[c.suit].color : (c.rank === "HR" ? "red" : "black");
  root.classList.add(color);
  if (wild) root.classList.add("wild");
  else if (levelCard) root.classList.add("level");
  if (!c.suit) root.classList.add("joker");
  root.append(svg("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 9, class: "face" }));
  const ink = color === "red" ? "#c8102e" : "#161616";
  if (!c.suit) {
    const word = c.rank === "HR" ? "大王" : "小王";
    root.setAttribute("aria-label", word + (c.rank === "HR" ? " big joker" : " small joker"));
    // the corner shows 大/王 (or 小/王) like a rank index, so a fanned hand still reads; the middle a big star
    root.append(svg("text", { x: 20, y: 34, "font-size": 28, fill: ink, "text-anchor": "middle", "font-weight": 700 },
      word[0]));
    root.append(svg("text", { x: 20, y: 64, "font-size": 28, fill: ink, "text-anchor": "middle", "font-weight": 700 },
      word[1]));
    root.append(svg("text", { x: 62, y: 98, "font-size": 56, fill: ink, "text-anchor": "middle" }, "★"));
    root.append(svg("text", { x: 62, y: 126, "font-size": 15, fill: ink, "text-anchor": "middle", "font-weight": 700,
      "letter-spacing": 2 }, "JOKER"));
    return root;
  }
  const rank = rankWord(c.rank);
  const sym = SUIT[c.suit].sym;
  root.setAttribute("aria-label", SUIT[c.suit].zh + rank);
  const small = rank.length > 1 ? 30 : 36;
  root.append(svg("text", { x: 8, y: 36, "font-size": small, fill: ink, "font-weight": 700, class: "rk",
    "letter-spacing": rank.length > 1 ? -3 : 0 }, rank));
  root.append(svg("text", { x: 10, y: 64, "font-size": 28, fill: ink }, sym));
  const g = svg("g", { transform: "rotate(180 50 70)" });
  g.append(svg("text", { x: 8, y: 36, "font-size": small, fill: ink, "font-weight": 700,
    "letter-spacing": rank.length > 1 ? -3 : 0 }, rank));
  g.append(svg("text", { x: 10, y: 64, "font-size": 28, fill: ink }, sym));
  root.append(g);
  if ("JQK".includes(c.rank)) {
    root.append(svg("rect", { x: 36, y: 34, width: 48, height: 72, rx: 5, fill: "none", stroke: ink,
      "stroke-width": 2 }));
    root.append(svg("text", { x: 60, y: 84, "font-size": 40, fill: ink, "text-anchor": "middle",
      "font-weight": 700 }, c.rank));
  } else {
    root.append(svg("text", { x: 60, y: 92, "font-size": 58, fill: ink, "text-anchor": "middle" }, sym));
  }
  if (wild || levelCard) {
    root.append(svg("circle", { cx: 80, cy: 20, r: 15, class: "badge" }));
    root.append(svg("text", { x: 80, y: 26.5, "font-size": 18, "text-anchor": "middle", class: "badge-t",
      "font-weight": 700 }, wild ? "配" : "级"));
  }
  if (wild && o.as) {
    const as = parseCard(o.as.length > 1 && SUIT[o.as[0]] ? o.as : "X" + o.as);
    const label = "→" + (as.suit && SUIT[as.suit] ? SUIT[as.suit].sym : "") + rankWord(as.rank);
    root.append(svg("rect", { x: 6, y: 108, width: 88, height: 26, rx: 6, class: "as-band" }));
    root.append(svg("text", { x: 50, y: 128, "font-size": 21, "text-anchor": "middle", class: "as-t",
      "font-weight": 700 }, label));
    root.dataset.as = o.as;
    root.setAttribute("aria-label", root.getAttribute("aria-label") + " 配作 " + label);
  }
  return root;
}

/** The cards of a play (or hand) in a row; wilds show what they stood for when the reading says so. */
function cardRow(codes, opts) {
  const o = opts || {};
  const box = document.createElement("span");
  box.className = "cards" + (o.cls ? " " + o.cls : "");
  box.style.setProperty("--n", String((codes || []).length));  // how many: a seat sizes its cards to fit them
  const stood = wildsStoodFor(codes, o.reading, o.level);
  (codes || []).forEach((code) => {
    const i = stood.findIndex((w) => w.code === parseCard(code).code);
    const as = i >= 0 ? stood.splice(i, 1)[0].as : undefined;
    box.append(cardFace(code, { level: o.level, as }));
  });
  return box;
}

/** The name of a play, Chinese first, English beside: "对子 8 · pair", "顺子 3–7 · straight". */
function playName(reading) {
  if (!reading) return "";
  const names = PLAY_NAMES[reading.type] || [reading.type, ""];
  let zh = names[0], en = names[1];
  const r = reading.rank === "10" ? "T" : reading.rank;
  if (reading.type === "four_jokers") return zh + " · " + en;
  if (reading.type === "bomb") { zh = (reading.size || 4) + "张" + zh; en = (reading.size || 4) + "-card " + en; }
  let what = rankWord(r || "");
  if (SEQ_LEN[reading.type]) {
    const start = r === "A" ? -1 : rankIndex(r);
    const end = start + SEQ_LEN[reading.type] - 1;
    what = rankWord(start < 0 ? "A" : RANKS[start]) + "–" + rankWord(RANKS[end] || "A");
    if (reading.type === "straight_flush" && reading.suit && SUIT[reading.suit]) what = SUIT[reading.suit].sym + what;
  }
  return zh + " " + what + " · " + en;
}

if (typeof module !== "undefined") {
  module.exports = { parseCard, sortHand, wildsStoodFor, playName, rankWord, isWild };
}

// Live table displays (掼蛋 现场显示): one table's view for a hall screen or a phone, and the hall overview of
// every table, drawn from the server's Server-Sent Events. The server sends a "snapshot" first (so a screen
// opened mid-deal shows the whole deal at once: state, the deal's events, the level chart, standings), then
// each change. EventSource reconnects by itself after a network or server drop, and every reconnect starts
// with a fresh snapshot. While the page has lost the server, or the server has lost the broker (its "link"),
// nothing shown is live: a banner says as of when it is, the live parts are dimmed and the turn timer stops.
// A match of duplicate boards is sealed (rules §12): its plays come as counts (drawn as card backs), its levels and
// results say 封存 until the desk has released every board the match played. Needs cards.js.
"use strict";

const PHASES = {
  idle: "等待开始 · Waiting", dealing: "发牌中 · Dealing", tribute: "进贡 · Tribute", playing: "出牌中 · Playing",
  deal_over: "本副结束 · Deal over", match_over: "比赛结束 · Match over", paused: "暂停 · Paused",
};
const LEVEL_STEPS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "A+"];

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function levelWord(l) { return l === "A+" ? "过A" : rankWord(l || "—"); }

/** A seat's words ("东 E"), kept on one line. */
function seatEl(seat, cls) {
  return el("span", "sw" + (cls ? " " + cls : ""), seatWord(seat));
}

// -- a duplicate board's plays: how many cards, not which -----------------------------------------------------
// A match of duplicate boards is sealed (rules §12): its plays reach the public topics as {seat, count} (the event's
// "count", the state's trick entries), without cards or reading, until the desk releases the board.

/** How many cards a play was: its cards, or a sealed play's count. */
function playCount(p) {
  if (!p) return 0;
  if (Array.isArray(p.cards) && p.cards.length) return p.cards.length;
  return typeof p.count === "number" && p.count > 0 ? Math.floor(p.count) : 0;
}

/** Whether a play is told only as a count of cards (a sealed board's). */
function sealedPlay(p) { return !!p && !(Array.isArray(p.cards) && p.cards.length) && playCount(p) > 0; }

/** "出 3 张 · played 3 cards" */
function countWords(n) { return "出 " + n + " 张 · played " + n + " card" + (n === 1 ? "" : "s"); }

/** One card's back (a sealed play: a card was laid, not which). */
function cardBack() {
  const root = svg("svg", { viewBox: "0 0 100 140", class: "card back", role: "img" });
  root.setAttribute("aria-label", "牌背 card back");
  root.append(svg("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 9, class: "face" }));
  root.append(svg("rect", { x: 11, y: 11, width: 78, height: 118, rx: 6, class: "inlay" }));
  root.append(svg("path", { d: "M50 34 L72 70 L50 106 L28 70 Z", class: "mark" }));
  return root;
}

/** n card backs in a row, sized as a row of faces (cardRow). */
function cardBacks(n, opts) {
  const o = opts || {};
  const count = Math.max(0, Math.min(27, Math.floor(n) || 0));
  const box = document.createElement("span");
  box.className = "cards backs" + (o.cls ? " " + o.cls : "");
  box.style.setProperty("--n", String(count));
  box.dataset.count = String(count);
  box.title = countWords(count);
  for (let i = 0; i < count; i++) box.append(cardBack());
  return box;
}

/** A play's cards: their faces, or a sealed play's backs. */
function playRow(p, level, cls) {
  if (sealedPlay(p)) return cardBacks(playCount(p), { cls });
  return cardRow(p.cards || [], { level, reading: p.reading, cls });
}

/** A play's name ("对子 9 · pair"), or a sealed play's count ("出 2 张 · played 2 cards"). */
function playWords(p) { return sealedPlay(p) ? countWords(playCount(p)) : playName(p && p.reading); }

/** A card in words for a line of text ("♥A", "大王"), red or black. */
function cardChip(code) {
  const c = parseCard(code);
  const red = c.suit ? SUIT[c.suit].color === "red" : c.rank === "HR";
  const chip = el("span", "cw " + (red ? "red" : "black"), c.suit ? SUIT[c.suit].sym + rankWord(c.rank) : rankWord(c.rank));
  chip.dataset.card = c.code;
  return chip;
}

// -- is what the page shows live? ---------------------------------------------------------------------------
// LIVE.link: the server's link to the broker (null: not said); LIVE.lostAt: when this page lost the server.
const LIVE = { link: null, lostAt: null };
// ms of silence on the event stream after which it is taken as stalled: three of the server's pings (its
// snapshot says how often it pings, 5 s by default), and one more second
let STALL_MS = 16000;

/** Seconds (epoch) as of which the page's picture stands when it is not live, else null. */
function staleAt() {
  if (LIVE.lostAt) return LIVE.lostAt;
  if (LIVE.link && LIVE.link.connected === false) return LIVE.link.away_since || Date.now() / 1000;
  return null;
}

function clockWords(t) {
  const d = new Date(t * 1000);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

// -- names ------------------------------------------------------------------------------------------------
function teamName(state, team) {
  const t = (state.teams || {})[team];
  const name = t && (typeof t === "string" ? t : t.name);
  return name || (team === "NS" ? "南北 NS" : "东西 EW");
}

function playerName(state, seat) {
  const t = (state.teams || {})[teamOf(seat)];
  const players = t && typeof t === "object" ? t.players || {} : {};
  const s = (state.seats || {})[seat] || {};
  return players[seat] || s.name || s.player || "";
}

function seatLabel(state, seat) {
  const name = playerName(state, seat);
  return seatWord(seat) + (name ? " " + name : "");
}

// -- the story of a deal, folded from its public events (the hub keeps the same list) -------------------------
function tellEvent(tab, ev) {
  if (ev.type === "deal_started" || ev.type === "match_started") tab.events = [];
  if (ev.type === "match_started") tab.chart = [];
  tab.events = (tab.events || []).concat([ev]).slice(-600);
  if (ev.type === "deal_over" && ev.levels) {  // a sealed board's deal_over tells no levels
    addPoint(tab, { deal: ev.deal, finish: ev.finish, winner: ev.winner, up: ev.up, levels: ev.levels,
      match: ev.match !== undefined ? ev.match : (tab.state || {}).match });
  }
}

/** One deal's point of the level chart, in deal order (hub.add_point). */
function addPoint(tab, point) {
  const match = (tab.state || {}).match;
  if (match != null && point.match != null && point.match !== match) return;
  tab.chart = (tab.chart || []).filter((p) => p.deal !== point.deal).concat([point]).sort((a, b) => a.deal - b.deal);
}

/** Tricks of the deal from its events: [{n, plays: [{seat, cards, reading} | {seat, pass}], winner}]. */
function storyOf(events) {
  const tricks = [];
  const notes = [];
  let cur = null;
  let tribute = [];
  let plan = null;
  let complete = false;  // the deal's start was seen: every play since is here
  // the number of the last trick won, as the table counts it (trick_won's ``trick``): a story trimmed to its last
  // events (an overview's brief snapshot) numbers its tricks from there, not from 1
  let lastN = null;
  for (const ev of events || []) {
    switch (ev.type) {
      case "deal_started": tricks.length = 0; cur = null; tribute = []; plan = null; complete = true; lastN = 0; break;
      case "tribute_plan": plan = { resisted: !!ev.resisted, payments: ev.payments || [], leader: ev.leader }; break;
      case "play":
        if (!cur) { cur = { n: lastN != null ? lastN + 1 : tricks.length + 1, plays: [] }; tricks.push(cur); }
        cur.plays.push({ seat: ev.seat, cards: ev.cards || [], count: ev.count, reading: ev.reading, left: ev.cards_left });
        break;
      case "pass": if (cur) cur.plays.push({ seat: ev.seat, pass: true }); break;
      case "trick_won":
        if (cur) {
          cur.winner = ev.seat; cur.jiefeng = !!ev.jiefeng;
          if (typeof ev.trick === "number") cur.n = ev.trick;
          lastN = cur.n; cur = null;
        } else if (typeof ev.trick === "number") lastN = ev.trick;
        break;
      case "seat_out": if (cur) cur.plays.push({ seat: ev.seat, out: ev.place }); break;
      case "tribute": tribute.push({ kind: "进贡 tribute", from: ev.seat, to: ev.to, card: ev.card }); break;
      case "return": tribute.push({ kind: "还贡 return", from: ev.seat, to: ev.to, card: ev.card }); break;
      case "correction": case "referee": case "penalty": case "paused": case "resumed": case "timeout":
        notes.push(ev); break;
      default: break;
    }
  }
  return { tricks, open: cur, tribute, notes, plan, complete };
}

/** Whether the state shows play this page has no events of: cards gone from a hand, or a trick on the table. */
function playedBefore(state, story) {
  if (story.complete || state.phase === "dealing") return false;
  const seats = Object.values(state.seats || {});
  return seats.some((s) => typeof s.cards_left === "number" && s.cards_left < 27) || (state.trick || []).length > 0;
}

/** One table's result of a released duplicate board (a board of snapshot.boards) as a point of its chart. */
function releasedPoint(b, row) {
  const lv = row.levels_after;
  if (typeof row.deal !== "number" || !lv || typeof lv.NS !== "string" || typeof lv.EW !== "string") return null;
  return { deal: row.deal, board: b.board, finish: row.finish, winner: row.winner, up: row.up, levels: lv, match: b.round };
}

/** Add to a table's chart its results of the released boards of its match (hub._take_released). */
function takeReleased(tab, name, boards) {
  const match = (tab.state || {}).match;
  if (match == null) return;
  (boards || []).filter((b) => b.round === match).forEach((b) => (b.tables || []).forEach((row) => {
    const p = row.table === name ? releasedPoint(b, row) : null;
    if (p) addPoint(tab, p);
  }));
}

// -- the last deal in words ------------------------------------------------------------------------------
// A match of duplicate boards is sealed (rules §12): a deal's result and the match's stay off the public topics
// until the desk releases the board, after every table has played it; the table's result then comes with it.
const SEALED_NOTE = "复式牌封存至全部牌桌打完 · duplicate board sealed until every table has played it";

/** Which deal, in words: "第3副 Deal 3"; of a duplicate board, the board and the deal apart (a deal is a 副, a
 *  board its number, 局 the match, rules 000 术语): "复式 2 号牌 Board 2 · 本场第6副 Deal 6". */
function dealWords(deal, board) {
  const d = deal != null ? deal : "?";
  if (board == null) return "第" + d + "副 Deal " + d;
  return boardWords(board) + (deal != null ? " · 本场第" + deal + "副 Deal " + deal : "");
}

/** A duplicate board, in words: "复式 2 号牌 Board 2". */
function boardWords(board) { return "复式 " + board + " 号牌 Board " + board; }

function sealedWords(r) {
  const which = r.board != null ? dealWords(r.deal, r.board) : "复式牌 · 本场第" + (r.deal || "?") + "副 Deal " + (r.deal || "?");
  return which + " · 封存 sealed";
}

/** Whether every board a sealed match has played is released: the chart holds the table's result of each
 *  finished deal (the desk's release, hub.release_board) and no deal is in play. Until then its levels and
 *  result stay sealed on screen. */
function boardsReleased(state, chart) {
  if (!state.sealed) return false;
  const phase = state.phase === "paused" ? state.paused_from : state.phase;
  if (phase !== "deal_over" && phase !== "match_over") return false;
  const done = state.deals_played;
  const pts = (chart || []).filter((p) => p && p.levels && typeof p.deal === "number" &&
    (state.match == null || p.match == null || p.match === state.match));
  if (typeof done !== "number" || done < 1 || pts.length < done) return false;
  const lr = state.last_result;
  return !(lr && typeof lr.deal === "number" && !pts.some((p) => p.deal === lr.deal));
}

/** The levels to show: the state's, or of a sealed match whose boards are all released, those after its last
 *  released board; null while sealed. */
function levelsShown(state, chart) {
  if (state.levels) return state.levels;
  if (!boardsReleased(state, chart)) return null;
  const pts = knownDeals(state, chart);
  return pts.length ? pts[pts.length - 1].levels : null;
}

/** The last deal to show: the state's, or of a sealed board the table's result of it once the board is
 *  released (the chart's point of that deal). */
function lastResultOf(state, chart) {
  const r = state.last_result;
  if (!r || !r.sealed) return r;
  const p = (chart || []).find((x) => x && x.deal === r.deal && x.finish && (r.board == null || x.board === r.board) &&
    (state.match == null || x.match == null || x.match === state.match));
  return p || r;
}

/** The levels before a finished deal, when the page knows them: 2 : 2 before a match's first deal (rules 000: each
 *  match starts at 2), else the levels after the deal before it (chart: the table's level chart); null if unknown. */
function levelsBefore(state, r, chart) {
  if (!r || typeof r.deal !== "number") return null;
  if (r.deal === 1) return { NS: "2", EW: "2" };
  const p = knownDeals(state, chart).find((x) => x.deal === r.deal - 1);
  return p ? p.levels : null;
}

/** Whether a team's rise stopped at A (rules 000: A must be played, no rise passes A): it ended at A, and its
 *  level before and the levels it won take it beyond A. False when the page cannot tell. */
function stoppedAtA(state, r, chart, team) {
  const after = r.levels_after || r.levels;
  const before = levelsBefore(state, r, chart);
  if (!after || after[team] !== "A" || !before || !r.up) return false;
  const from = LEVEL_STEPS.indexOf(before[team]);
  return from >= 0 && from + r.up > LEVEL_STEPS.indexOf("A");
}

/** The last deal in words; ``chart``: the table's level chart (for a rise stopped at A). */
function resultWords(state, r, chart) {
  if (r && r.sealed && (!r.finish || !r.finish.length)) return sealedWords(r);
  if (!r || !r.finish || !r.finish.length) return "";
  const first = r.finish[0];
  const team = teamOf(first);
  const partner = partnerOf(first);
  const place = r.finish.indexOf(partner);
  const how = place === 1 ? "双下 double-down" : place === 2 ? "搭档三游 partner 3rd" : "搭档下游 partner last";
  const up = r.up ? "升" + r.up + "级 up " + r.up : "不升级 no level up";
  const after = r.levels_after || r.levels;
  const lv = after ? " → " + levelWord(after[team]) + (stoppedAtA(state, r, chart, team) ? "（止于A · stops at A）" : "") : "";
  const which = dealWords(r.deal, r.board);  // a released duplicate board says its board
  return which + "：上游 1st " + seatLabel(state, first) + " · " + how + " · " + teamName(state, team) + " " + up + lv;
}

/** Every seat's place in a finished deal: [[place words, [seats]]], 上游 first. After a 双下 the two seats
 *  left holding cards share the last place. */
function placesOf(r) {
  const finish = (r && r.finish) || [];
  if (!finish.length) return [];
  const rest = PLAY_ORDER.filter((s) => !finish.includes(s));
  const out = finish.slice(0, 4).map((s, i) => [PLACES[i + 1], [s]]);
  if (rest.length === 1) out.push([PLACES[4], rest]);
  else if (rest.length) out.push(["下游 last", rest]);
  return out;
}

/** The match's 场分 and 级差分 as the table gave them ("" when it did not). */
function pointsWords(state, m) {
  const mp = m.match_points, lp = m.level_points;
  const num = (x) => typeof x === "number";
  if (!mp || !lp || !num(mp.NS) || !num(mp.EW) || !num(lp.NS) || !num(lp.EW)) return "";
  return "场分 match points " + mp.NS + " : " + mp.EW + " · 级差分 level points " + lp.NS + " : " + lp.EW;
}

/** The desk's result of the table's finished match when the referees corrected it (a changed result, a walk-over
 *  entered at the desk, a void match): the standings' entry of this table and round (standings.matches,
 *  ledger.round_matches); null while the table's own result stands (and for a match not over). */
function deskResult(state, name, standings) {
  if (!state || !(state.match_result || state.phase === "match_over") || state.match == null) return null;
  const list = standings && Array.isArray(standings.matches) ? standings.matches : [];
  const table = name || state.table;
  return list.find((m) => m && m.corrected === true && m.table === table && m.round === state.match) || null;
}

/** The knockout match this table plays (决赛 · Final, 三四名决赛 · Third-place match ...): its table's entry in
 *  the bracket's round of its match (standings.knockout, summaries.knockout_summary); null outside a knockout. */
function knockoutStage(state, name, standings) {
  const ko = standings && standings.knockout;
  if (!ko || !Array.isArray(ko.rounds) || state.match == null) return null;
  const round = ko.rounds.find((r) => r && r.round === state.match);
  const table = name || state.table;
  const match = round && Array.isArray(round.matches) ? round.matches.find((m) => m && m.table === table) : null;
  return match ? match.stage : null;
}

/** Why the desk's result is shown instead of the table's: 作废, 弃权 or a referees' correction. */
function deskNote(desk) {
  return desk.void ? "作废 void" : desk.walkover ? "弃权 walk-over" : "裁判更正 corrected by the referees";
}

/** The finished match's levels and winner as they count: the desk's when the referees corrected it (a void match
 *  has no winner; it keeps the levels played), else the table's. */
function matchShown(state, desk) {
  const m = state.match_result || {};
  if (!desk) return { levels: m.levels, winner: m.winner };
  return { levels: (!desk.void && desk.levels) || m.levels, winner: desk.void ? null : desk.winner };
}

/** The desk's result in words: "比赛结束 · 银队 胜 wins — 红队 4 : 5 银队 · 裁判更正 corrected by the referees". */
function deskWords(state, desk) {
  const note = deskNote(desk);
  if (desk.void) return "比赛结束 Match over · " + note;
  const won = desk.winner ? "比赛结束 · " + teamName(state, desk.winner) + " 胜 wins — " : "比赛结束 · 平局 draw — ";
  if (desk.walkover || !desk.levels) return won + note;  // nothing was played: its levels tell nothing
  const score = teamName(state, "NS") + " " + levelWord(desk.levels.NS) + " : " + levelWord(desk.levels.EW) + " " +
    teamName(state, "EW");
  return won + score + " · " + note;
}

/** The finished match in words; ``desk``: the referees' correction of it (deskResult), said instead. */
function matchWords(state, chart, desk) {
  if (desk) return deskWords(state, desk);
  const m = state.match_result;
  if (!m) return "";
  if (m.sealed) {
    return boardsReleased(state, chart) ? "比赛结束 · 复式牌已公布 Match over · boards released"
      : "比赛结束 · 复式牌成绩封存 Match over · duplicate boards sealed";
  }
  const lv = m.levels || state.levels || {};
  const score = teamName(state, "NS") + " " + levelWord(lv.NS) + " : " + levelWord(lv.EW) + " " + teamName(state, "EW");
  return (m.winner ? "比赛结束 · " + teamName(state, m.winner) + " 胜 wins — " : "比赛结束 Match over — ") + score;
}

// -- pieces ----------------------------------------------------------------------------------------------
function timerText(state) {
  const t = state.timer;
  if (!t || !state.turn) return "";
  return timerWords(t.since, t.deadline);
}

/** The turn's clock in words; it stops where the page's picture stops being live. */
function timerWords(since, deadline) {
  const now = staleAt() || Date.now() / 1000;
  if (deadline) {
    const left = Math.max(0, Math.round(deadline - now));
    return "剩 " + left + " 秒 · " + left + " s left";
  }
  if (since) {
    const used = Math.max(0, Math.round(now - since));
    return "用时 " + used + " 秒 · " + used + " s";  // words, not an emoji clock: a hall screen may lack the font
  }
  return "";
}

/** A timed match's time left (state.match_clock, table time as the turn timer), or "" for an untimed one. */
function matchClockWords(ends, timeUp) {
  if (timeUp) return "时间到 · time up";
  if (!ends) return "";
  const left = ends - Date.now() / 1000;
  if (left <= 0) return "时间到 · time up";
  if (left < 60) { const sec = Math.ceil(left); return "剩 " + sec + " 秒 · " + sec + " s left"; }
  const min = Math.floor(left / 60);
  return "剩 " + min + " 分 · " + min + " min left";
}

function matchClockEl(state, cls) {
  const mc = state.match_clock;
  if (!mc || typeof mc !== "object" || (!mc.ends && !mc.time_up) || state.phase === "match_over") return null;
  const e = el("span", "mclock" + (cls ? " " + cls : "") + (mc.time_up ? " up" : ""), matchClockWords(mc.ends, mc.time_up));
  if (mc.ends) e.dataset.ends = String(mc.ends);
  if (mc.time_up) e.dataset.up = "1";
  return e;
}

/** Once a second: the turn timers (stopped while the picture is not live) and the match clocks. */
function tickClocks() {
  document.querySelectorAll(".timer[data-since], .timer[data-deadline]").forEach((t) => {
    t.textContent = timerWords(Number(t.dataset.since) || 0, Number(t.dataset.deadline) || 0);
  });
  document.querySelectorAll(".mclock").forEach((c) => {
    const text = matchClockWords(Number(c.dataset.ends) || 0, c.dataset.up === "1");
    c.textContent = text;
    c.classList.toggle("up", text.startsWith("时间到"));
  });
}

function seatBox(state, seat, lastAct) {
  const s = (state.seats || {})[seat] || {};
  const box = el("div", "seat seat-" + seat + (state.turn === seat ? " turn" : "") + (s.place ? " out" : ""));
  box.dataset.seat = seat;
  const head = el("div", "who");
  head.append(el("span", "pos", seatWord(seat)));
  head.append(el("span", "pname", playerName(state, seat) || "—"));
  head.append(el("span", "steam team-" + teamOf(seat), teamName(state, teamOf(seat))));  // beside the name: a line
  box.append(head);                                                                     // less, for the cards
  const info = el("div", "info");
  if (s.place) {
    info.append(el("span", "place", PLACES[s.place] || s.place));
  } else if (typeof s.cards_left === "number") {
    // the English in its own span: a featured table's narrow seat shows the Chinese only, or its name is cut
    const left = el("span", "left", "余 " + s.cards_left + " 张");
    left.append(el("span", "en", " · " + s.cards_left + " left"));
    info.append(left);
    // the count is beside it (余 N 张): the badge says only that it was reported
    if (s.reported && s.cards_left > 0) {
      const rep = el("span", "report", "报牌");
      rep.append(el("span", "en", " reported"));
      info.append(rep);
    }
  } else if (s.reported) {  // a sealed board's seat: it reported, its count is not public (rules §12)
    info.append(el("span", "report", "报牌 reported"));
  }
  if (state.turn === seat) {
    info.append(el("span", "turnmark", "▶ 出牌 to play"));
    const timer = el("span", "timer", timerText(state));
    if (state.timer && state.timer.since) timer.dataset.since = String(state.timer.since);
    if (state.timer && state.timer.deadline) timer.dataset.deadline = String(state.timer.deadline);
    info.append(timer);
  }
  box.append(info);
  const act = el("div", "act");
  if (lastAct) {
    if (lastAct.pass) act.append(el("span", "pass", "过 pass"));
    else if (playCount(lastAct)) {  // its cards, or a sealed board's backs
      act.append(playRow(lastAct, state.level));
      act.append(el("div", "reading" + (sealedPlay(lastAct) ? " count" : ""), playWords(lastAct)));
    }
    if (lastAct.best) act.classList.add("best");
    if (lastAct.prev) act.classList.add("prev");
  }
  box.append(act);
  return box;
}

/** The plays of the current trick in the public state, oldest first (an older table's single play to beat
 *  is taken as a trick of one play). */
function trickPlays(state) {
  const t = state.trick;
  if (Array.isArray(t)) return t.filter((p) => p && p.seat);
  return t && t.seat ? [t] : [];
}

/** The play to beat, or null when the turn seat leads. */
function topPlay(state) {
  const plays = trickPlays(state);
  return plays.length ? plays[plays.length - 1] : null;
}

/** Seats that passed since the play to beat. */
function trickPasses(state) {
  return state.trick_passes || (state.trick && state.trick.passes) || 0;
}

/** Each seat's latest action in the trick being played, the play to beat marked. */
function trickActs(state, story) {
  const acts = {};
  const open = story.open;
  const t = topPlay(state);
  // the same play (a sealed board's: the same seat and count of cards)
  const matches = open && t && open.plays.some((p) => !p.pass && !p.out && p.seat === t.seat &&
    (p.cards || []).join() === (t.cards || []).join() && playCount(p) === playCount(t));
  // the trick's plays from the state (a screen that joined mid-trick has no events of its start), then what the
  // events told of this trick, passes included
  const act = (p) => ({ seat: p.seat, cards: p.cards, count: p.count, reading: p.reading });
  trickPlays(state).forEach((p) => { acts[p.seat] = act(p); });
  if (matches) open.plays.forEach((p) => { if (!p.out) acts[p.seat] = p; });
  if (t) acts[t.seat] = Object.assign(act(t), { best: true });
  const last = story.tricks[story.tricks.length - 1];
  if (!t && state.phase === "playing" && last && last.winner) {  // a new trick to lead: the last one, faded
    last.plays.forEach((p) => { if (!p.out) acts[p.seat] = Object.assign({ prev: true }, p); });
    const top = last.plays.filter((p) => !p.pass && !p.out).pop();
    if (top) acts[top.seat].best = true;
  }
  return acts;
}

/** The middle of the table: which trick, whose turn (lead or follow), what is to beat. */
function trickBanner(state, story) {
  const box = el("div", "trick-banner");
  const done = story.tricks[story.tricks.length - 1];
  const n = story.open ? story.open.n : done ? done.n + 1 : 1;
  box.append(el("div", "tb-n", "第 " + n + " 圈 · Trick " + n));
  if (state.turn) {
    box.append(el("div", "tb-turn", "▶ " + seatLabel(state, state.turn) + (topPlay(state) ? " 出牌 to play" : " 领出 to lead")));
  }
  const t = topPlay(state);
  if (t && (t.reading || sealedPlay(t))) {
    const beat = el("div", "tb-beat", "要压 to beat: " + playWords(t) + " — ");
    beat.append(seatEl(t.seat));
    box.append(beat);
    const passes = trickPasses(state);
    if (passes) box.append(el("div", "tb-pass", passes + " 家过 · " + passes + " passed"));
  } else {
    const last = story.tricks[story.tricks.length - 1];
    if (last && last.winner) {
      box.append(el("div", "tb-pass", "上一圈 " + seatLabel(state, last.winner) + " 胜" +
        (last.jiefeng && state.turn ? "，借风 " + seatWord(state.turn) : "") + " · last trick won by " + SEAT[last.winner].en +
        (last.jiefeng && state.turn ? ", partner " + SEAT[state.turn].en + " leads (借风)" : "")));
    }
  }
  return box;
}

/** Both teams and their levels; a sealed match's say 封存 until all its boards are released (chart: the
 *  table's level chart, which holds the released boards' results). */
function scoreboard(state, chart, desk) {
  const box = el("div", "scoreboard");
  const levels = (desk && matchShown(state, desk).levels) || levelsShown(state, chart) || {};
  ["NS", "EW"].forEach((team) => {
    const side = el("div", "side team-" + team + (state.played === team ? " playing" : ""));
    side.dataset.team = team;
    const names = el("div", "tnames");
    names.append(el("div", "tn", teamName(state, team)));
    const seats = team === "NS" ? ["N", "S"] : ["E", "W"];
    names.append(el("div", "tp", seats.map((s) => playerName(state, s) || seatWord(s)).join(" · ")));
    side.append(names);
    const lv = el("div", "lvbox");
    const sealed = state.sealed && !levels[team];  // a match of duplicate boards: no levels to show
    lv.append(el("div", "lvl", sealed ? "复式牌 · sealed" : "级 level"));
    lv.append(el("div", "lvn" + (sealed ? " sealed" : ""), sealed ? "封存" : levelWord(levels[team])));
    side.append(lv);
    box.append(side);
  });
  return box;
}

function historyEl(state, story, limit) {
  const box = el("div", "history");
  box.append(el("h2", "", "本副出牌 · Play of this deal"));
  const list = el("ol", "tricks");
  const tricks = story.tricks.slice().reverse().slice(0, limit || 999);
  tricks.forEach((tr) => {
    const li = el("li", "trick-row" + (tr === story.open ? " open" : ""));
    li.dataset.trick = tr.n;
    li.append(el("span", "tno", "第" + tr.n + "圈"));
    const plays = el("span", "tplays");
    tr.plays.forEach((p) => {
      if (p.out) return;
      const one = el("span", "tp1" + (p.pass ? " pass" : ""));
      one.dataset.seat = p.seat;
      one.append(el("b", "", SEAT[p.seat] ? SEAT[p.seat].zh : p.seat));
      if (p.pass) one.append(el("span", "", "过"));
      else {
        one.append(playRow(p, state.level, "mini"));
        one.append(el("span", "pn", playWords(p).split(" · ")[0]));
      }
      plays.append(one);
    });
    li.append(plays);
    if (tr.winner) li.append(el("span", "twin", (SEAT[tr.winner] ? SEAT[tr.winner].zh : tr.winner) + " 胜" +
      (tr.jiefeng ? " · 借风 partner leads" : "")));
    list.append(li);
  });
  if (playedBefore(state, story)) {  // a server restarted (or this screen joined) mid-deal: say it, never "no play"
    list.append(el("li", "empty unknown", "此前的出牌未收到 · earlier play of this deal not received"));
  } else if (!tricks.length) list.append(el("li", "empty", "尚未出牌 · no play yet"));
  box.append(list);
  return box;
}

/** The finished deals of the match the page knows of, in deal order: the chart's points (of the state's
 *  match) and the state's last result. */
function knownDeals(state, chart) {
  const pts = (chart || []).filter((p) => p && p.levels && typeof p.deal === "number" &&
    (state.match == null || p.match == null || p.match === state.match));
  const lr = state.last_result;
  if (lr && typeof lr.deal === "number" && (lr.levels_after || lr.levels) && !pts.some((p) => p.deal === lr.deal)) {
    pts.push({ deal: lr.deal, finish: lr.finish, winner: lr.winner, up: lr.up, levels: lr.levels_after || lr.levels });
  }
  return pts.sort((a, b) => a.deal - b.deal);
}

/** The match's levels deal by deal: one line per team (SVG). A line joins only deals next to each other: deals
 *  the page was never told of (a desk restarted mid-match) are a grey band marked "?", never a line. */
function chartEl(state, chart) {
  const box = el("div", "chart");
  box.append(el("h2", "", "级数走势 · Levels deal by deal"));
  const pts = [{ deal: 0, levels: { NS: "2", EW: "2" } }].concat(knownDeals(state, chart));
  const runs = [[pts[0]]];
  const gaps = [];
  for (let i = 1; i < pts.length; i++) {
    if (pts[i].deal === pts[i - 1].deal + 1) runs[runs.length - 1].push(pts[i]);
    else { gaps.push([pts[i - 1].deal + 1, pts[i].deal - 1]); runs.push([pts[i]]); }
  }
  const n = Math.max(4, pts[pts.length - 1].deal);
  const W = 600, H = 210, L = 34, R = 12, T = 10, B = 26;
  const x = (d) => L + (W - L - R) * d / n;
  const y = (lv) => T + (H - T - B) * (1 - Math.max(0, LEVEL_STEPS.indexOf(lv)) / 13);
  const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "levels-chart", preserveAspectRatio: "none" });
  ["2", "5", "8", "J", "A"].forEach((lv) => {
    g.append(svg("line", { x1: L, x2: W - R, y1: y(lv), y2: y(lv), class: "grid" }));
    g.append(svg("text", { x: L - 6, y: y(lv) + 5, "text-anchor": "end", class: "axis" }, rankWord(lv)));
  });
  for (let d = 0; d <= n; d += Math.max(1, Math.ceil(n / 12))) {
    g.append(svg("text", { x: x(d), y: H - 6, "text-anchor": "middle", class: "axis" }, String(d)));
  }
  gaps.forEach(([a, b]) => {
    g.append(svg("rect", { x: x(a - 1), y: T, width: x(b + 1) - x(a - 1), height: H - T - B, class: "gap" }));
    g.append(svg("text", { x: (x(a - 1) + x(b + 1)) / 2, y: (T + H - B) / 2 + 6, "text-anchor": "middle", class: "gap-t" }, "?"));
  });
  ["NS", "EW"].forEach((team) => {
    runs.filter((run) => run.length > 1).forEach((run) => {
      const line = run.map((p) => x(p.deal) + "," + y(p.levels[team])).join(" ");
      const poly = svg("polyline", { points: line, class: "line line-" + team });
      poly.dataset.deals = run.map((p) => p.deal).join(",");
      g.append(poly);
    });
    pts.forEach((p) => {
      const dot = svg("circle", { cx: x(p.deal), cy: y(p.levels[team]), r: 5, class: "dot dot-" + team });
      if (p.deal) dot.dataset.deal = p.deal;
      g.append(dot);
    });
  });
  box.append(g);
  const legend = el("div", "legend");
  ["NS", "EW"].forEach((t) => legend.append(el("span", "key team-" + t, teamName(state, t))));
  if (gaps.length) {
    const which = gaps.map(([a, b]) => (a === b ? String(a) : a + "–" + b)).join(", ");
    const many = gaps.length > 1 || gaps[0][0] !== gaps[0][1] ? "s " : " ";
    legend.append(el("span", "gapnote", state.sealed ? "第 " + which + " 副封存或未知 · deal" + many + which +
      " sealed or not known" : "第 " + which + " 副未知 · deal" + many + which + " not known"));
  }
  box.append(legend);
  box.dataset.points = String(pts.length - 1);
  box.dataset.gaps = gaps.map(([a, b]) => a + "-" + b).join(",");
  return box;
}

function outOrder(state) {
  const seats = state.seats || {};
  return PLAY_ORDER.filter((s) => seats[s] && seats[s].place).sort((a, b) => seats[a].place - seats[b].place);
}

/** Who pays whom in this deal's tribute (state.tribute: given, returned, laid, pending, resisted), in words. */
function tributeParts(state, story) {
  const t = state.tribute && typeof state.tribute === "object" ? state.tribute : null;
  if (!t) return null;
  const given = t.given || [], returned = t.returned || [];
  const receivers = given.map((g) => g.to);
  const pending = (t.pending || []).filter((s) => SEAT[s]);
  return {
    resisted: !!t.resisted, given, returned, laid: t.laid || {},
    toReturn: pending.filter((s) => receivers.includes(s)),
    toGive: pending.filter((s) => !receivers.includes(s)),
    leader: story.plan && SEAT[story.plan.leader] ? story.plan.leader : null,
  };
}

/** One line for the whole deal: tribute and return (who to whom, which card), or 抗贡, and who led. */
function tributeLine(state, story) {
  const p = tributeParts(state, story);
  if (!p || (!p.resisted && !p.given.length && !p.returned.length)) return null;
  const box = el("div", "tribute-line");
  box.dataset.phase = state.phase || "";
  const item = (cls) => box.appendChild(el("span", "tl " + cls));
  if (p.resisted) item("tl-resist").textContent = "抗贡 · no tribute (two big jokers)";
  p.given.forEach((g) => {
    const one = item("tl-give");
    one.append(el("span", "k", "进贡 tribute"), seatEl(g.from), " → ", seatEl(g.to), " ", cardChip(g.card));
  });
  p.returned.forEach((g) => {
    const one = item("tl-return");
    one.append(el("span", "k", "还贡 return"), seatEl(g.from), " → ", seatEl(g.to), " ", cardChip(g.card));
  });
  if (p.leader) {
    const one = item("tl-lead");
    one.append(seatEl(p.leader), " 领出 · leads");
  }
  return box;
}

/** The tribute as it happens (phase "tribute"): the cards given and returned, face up, who still has to give
 *  or return, and who will lead. */
function tributeBlock(state, story) {
  const p = tributeParts(state, story);
  const fromEvents = story.tribute;
  if (!p && !fromEvents.length) return null;
  const tb = el("div", "tribute");
  const row = (kind, from, to, card) => {
    const r = el("div", "trib");
    const words = el("span", "tw", kind + " ");
    words.append(seatEl(from), " → ", seatEl(to));
    r.append(words);
    if (card) r.append(cardRow([card], { level: state.level, cls: "mini" }));
    tb.append(r);
  };
  if (p) {
    if (p.resisted) tb.append(el("div", "trib resist", "抗贡 · no tribute (two big jokers)"));
    p.given.forEach((g) => row("进贡 tribute", g.from, g.to, g.card));
    Object.keys(p.laid).filter((s) => SEAT[s] && !p.given.some((g) => g.from === s)).forEach((s) => {
      const r = el("div", "trib");
      const words = el("span", "tw");
      words.append(seatEl(s), " 亮出 laid");
      r.append(words, cardRow([p.laid[s]], { level: state.level, cls: "mini" }));
      tb.append(r);
    });
    p.returned.forEach((g) => row("还贡 return", g.from, g.to, g.card));
    const wait = el("div", "trib-wait");
    if (p.toGive.length) {
      const w = el("span", "pend");
      w.append("待进贡 to give: ");
      p.toGive.forEach((s, i) => { if (i) w.append("、"); w.append(seatEl(s)); });
      wait.append(w);
    }
    if (p.toReturn.length) {
      const w = el("span", "pend");
      w.append("待还贡 to return: ");
      p.toReturn.forEach((s, i) => { if (i) w.append("、"); w.append(seatEl(s)); });
      wait.append(w);
    }
    if (p.leader) {
      const w = el("span", "lead");
      w.append(seatEl(p.leader), " 领出 · leads");
      wait.append(w);
    }
    if (wait.children.length) tb.append(wait);
  } else {
    fromEvents.forEach((t) => row(t.kind, t.from, t.to, t.card));
  }
  return tb;
}

/** The last deal in full: the team that went up, then every seat's place. */
function lastDealEl(state, r, chart) {
  const box = el("div", "result-words");
  if (r && r.sealed && (!r.finish || !r.finish.length)) {
    box.textContent = sealedWords(r);
    box.append(el("div", "sealed-note", SEALED_NOTE));
    return box;
  }
  if (!r || !r.finish || !r.finish.length) {
    box.textContent = "本场尚无结果 · no deal finished yet";
    return box;
  }
  box.textContent = resultWords(state, r, chart);
  const places = el("div", "places");
  placesOf(r).forEach(([words, seats]) => {
    const one = el("span", "pl1");
    one.dataset.place = words.split(" ")[0];
    one.append(el("b", "", words + " "));
    seats.forEach((s, i) => { if (i) one.append("、"); one.append(el("span", "sw", seatLabel(state, s))); });
    places.append(one);
  });
  box.append(places);
  return box;
}

// -- one table, large (hall screen) or as a tile ----------------------------------------------------------
function drawTable(root, name, tab, standings) {
  const state = (tab && tab.state) || {};
  const desk = deskResult(state, name, standings);  // the referees' correction of the finished match, if any
  const status = (tab && tab.status) || {};
  const story = storyOf(tab && tab.events);
  root.replaceChildren();
  const top = el("header", "top");
  const title = el("div", "title");
  title.append(el("span", "tname", "牌桌 " + name));
  title.append(el("span", "tname-en", "Table " + name));
  if (status.online === false) title.append(el("span", "alert", "离线 offline"));
  top.append(title);
  const what = el("div", "what");
  const board = state.board != null;  // a duplicate board: the board, and the deal apart
  const round = state.match ? ["第" + state.match + "轮", "Round " + state.match] : null;  // the event's round
  const deal = state.deal ? [(board ? "本场第" : "第") + state.deal + "副", "Deal " + state.deal] : null;
  const which = [round, deal].filter(Boolean);
  const dealLine = el("div", "deal");  // "第2轮 第6副 · Round 2, Deal 6", each language kept on one line
  if (which.length) {
    dealLine.append(el("span", "", which.map((w) => w[0]).join(" ")), " · ", el("span", "", which.map((w) => w[1]).join(", ")));
  }
  what.append(dealLine);
  if (board) what.append(el("div", "board", "复式 " + state.board + " 号牌 · Board " + state.board));
  const stage = knockoutStage(state, name, standings);
  if (stage) what.append(el("div", "ko-stage", "淘汰赛 " + stage));
  const phase = el("div", "phase", PHASES[state.phase] || state.phase || "—");
  const clock = matchClockEl(state);
  if (clock) phase.append(" ", clock);
  what.append(phase);
  if (state.level) what.append(el("div", "wl", "打 " + rankWord(state.level) + " · playing " + rankWord(state.level)));
  top.append(what);
  top.append(scoreboard(state, tab && tab.chart, desk));
  const playing = el("div", "playing-level");
  if (state.level) {
    playing.append(el("div", "pl-l", "打 " + rankWord(state.level) + " · playing " + rankWord(state.level)));
    playing.append(el("div", "pl-t", "打 " + teamName(state, state.played) + " 的级 · " + teamName(state, state.played) + "'s level"));
    const ex = el("div", "pl-cards");
    ex.append(cardFace("H" + state.level, { level: state.level }));
    ex.append(cardFace("S" + state.level, { level: state.level }));
    playing.append(ex);
    playing.append(el("div", "pl-k", "红心" + rankWord(state.level) + "为逢人配 · ♥" + rankWord(state.level) + " is wild"));
  }
  top.append(playing);
  if (state.phase !== "tribute" && state.phase !== "match_over") {
    const line = tributeLine(state, story);
    if (line) top.append(line);
  }
  root.append(top);

  const main = el("div", "main");
  const felt = el("div", "felt");
  const acts = trickActs(state, story);
  ["N", "W", "E", "S"].forEach((s) => felt.append(seatBox(state, s, acts[s])));
  const centre = el("div", "centre");
  if (state.phase === "playing") centre.append(trickBanner(state, story));
  const order = outOrder(state);
  if (order.length) {
    const o = el("div", "outorder");
    o.append(el("span", "lbl", "出完顺序 Out: "));
    order.forEach((s) => o.append(el("span", "o1", PLACES[state.seats[s].place].split(" ")[0] + " " + seatLabel(state, s))));
    centre.append(o);
  }
  if (state.phase === "tribute") {
    const tb = tributeBlock(state, story);
    if (tb) centre.append(tb);
  }
  const lastResult = lastResultOf(state, tab && tab.chart);
  const words = state.match_result || desk ? matchWords(state, tab && tab.chart, desk) : resultWords(state, lastResult, tab && tab.chart);
  if (words && state.phase !== "playing") centre.append(el("div", "result-words" + (desk ? " corrected" : ""), words));
  const points = desk ? pointsWords(state, desk) : state.match_result ? pointsWords(state, state.match_result) : "";
  if (points) centre.append(el("div", "match-points", points));
  felt.append(centre);
  main.append(felt);
  const side = el("div", "side-col");
  side.append(historyEl(state, story, 14));
  main.append(side);
  root.append(main);

  const foot = el("footer", "bottom");
  foot.append(chartEl(state, tab && tab.chart));
  const last = el("div", "lastdeal");
  last.append(el("h2", "", "上一副 · Last deal"));
  last.append(lastDealEl(state, lastResult, tab && tab.chart));
  if (desk) {
    last.append(el("div", "match-words corrected", matchWords(state, tab && tab.chart, desk)));
    const pts = pointsWords(state, desk);
    if (pts) last.append(el("div", "match-points", pts));
  } else if (state.match_result) {
    last.append(el("div", "match-words", matchWords(state, tab && tab.chart)));
    if (state.match_result.sealed && !boardsReleased(state, tab && tab.chart)) {
      last.append(el("div", "sealed-note", SEALED_NOTE));
    }
    const pts = pointsWords(state, state.match_result);
    if (pts) last.append(el("div", "match-points", pts));
  }
  const known = knownDeals(state, tab && tab.chart);
  const earlier = known.filter((p) => p.finish && (!state.last_result || p.deal !== state.last_result.deal));
  if (earlier.length) {
    const list = el("ol", "deals");
    earlier.slice(state.match_result ? -1 : -2).reverse().forEach((p) => list.append(el("li", "", resultWords(state, p, tab && tab.chart))));
    last.append(list);
  }
  const end = state.match_end || {};
  // the methods as rules 000 name them: 计局制, 计副制, 计时制, 计时计副制
  if (end.method) last.append(el("div", "match-end", "赛制 Format: " + (end.method === "deals" ? "计副制 " + end.deals +
    " 副 · " + end.deals + " deals" : end.method === "time" ? "计时制 " + end.minutes + " 分钟 · " + end.minutes + " minutes"
    : end.method === "pass_a" ? "计局制（打过A）· until a team passes A" : "计时计副制 " + end.minutes + " 分钟或 " +
      end.deals + " 副 · " + end.minutes + " min or " + end.deals + " deals") +
    (state.deals_played ? " · 已打 " + state.deals_played + " 副 · " + state.deals_played + " played" : "")));
  foot.append(last);
  root.append(foot);
}

// -- tiles of the overview -------------------------------------------------------------------------------
/** A dealer's state that needs a look, in the desk's words (desk/alerts.py). */
const DEALER_WORDS = { jam: "发牌机卡牌 dealer jam", jammed: "发牌机卡牌 dealer jam", fault: "发牌机故障 dealer fault",
  missing: "找不到发牌机 dealer not found", lost: "发牌机连接中断 dealer link lost" };

function alertsOf(tab) {
  const out = [];
  const status = tab.status || {}, health = tab.health || {}, state = tab.state || {};
  if (status.online === false) out.push("离线 offline");
  if (state.phase === "paused") out.push("暂停 paused");
  const dealer = health.dealer || {};
  if (dealer.state && !["ready", "idle", "dealing", "done"].includes(dealer.state)) {
    out.push(DEALER_WORDS[dealer.state] || "发牌机异常 dealer " + dealer.state);
  }
  if ((health.camera || {}).lost) out.push("摄像头无画面 camera lost");
  if ((health.camera || {}).dim) out.push("摄像头过暗 camera too dark");
  if ((health.camera || {}).calibrated === false && !(health.camera || {}).lost) out.push("摄像头未标定 camera not calibrated");
  if (state.pending_declaration) out.push("待声明 declaration pending");
  return out;
}

function drawTile(root, name, tab, standings) {
  const state = (tab && tab.state) || {};
  const desk = deskResult(state, name, standings);  // the referees' correction of the finished match, if any
  root.replaceChildren();
  const head = el("div", "tile-head");
  head.append(el("span", "tname", name));
  const deal = el("span", "deal");  // of a duplicate board, the board and the deal apart, each kept on one line
  if (state.deal && state.board != null) deal.append(el("span", "", boardWords(state.board)), " · ");
  if (state.deal) deal.append(el("span", "", (state.board != null ? "本场第" : "第") + state.deal + "副 Deal " + state.deal));
  head.append(deal);
  const stage = knockoutStage(state, name, standings);
  if (stage) head.append(el("span", "ko-stage", stage));
  // a table with no match in the round now paired (a knockout uses fewer tables) still shows its last one: say
  // which round that was, or a hall reads an old result as the current round's
  const round = standings && standings.round;
  const idle = round && state.match && state.match < round && !(Array.isArray(standings.matches) ? standings.matches
    : []).some((m) => m && m.table === name && m.round === round);
  root.classList.toggle("idle-round", !!idle);
  if (idle) head.append(el("span", "round-note", "第" + state.match + "轮 · Round " + state.match + " · 第" + round +
    "轮无比赛 · no match in round " + round));
  const clock = matchClockEl(state);
  if (clock) head.append(clock);
  const gone = ((tab && tab.status) || {}).online === false;  // its last state is not what happens there now
  head.append(el("span", "phase", gone ? "离线 · Offline" : PHASES[state.phase] || "—"));
  root.append(head);
  const over = state.phase === "match_over";
  const shown = matchShown(state, desk);
  const won = over && (state.match_result || desk) ? shown.winner : null;
  const chart = tab && tab.chart;
  const levels = (over && shown.levels) || levelsShown(state, chart) || {};
  const lead = LEVEL_STEPS.indexOf(levels.NS) - LEVEL_STEPS.indexOf(levels.EW);
  ["NS", "EW"].forEach((team) => {
    const row = el("div", "tile-team team-" + team + (state.played === team && !over ? " playing" : ""));
    row.dataset.team = team;
    row.append(el("span", "tn", teamName(state, team)));
    if (over) { if (won === team) row.append(el("span", "lead won", "胜 wins")); }
    else if ((team === "NS" && lead > 0) || (team === "EW" && lead < 0)) row.append(el("span", "lead", "领先 leads"));
    const sealed = state.sealed && !levels[team];
    row.append(el("span", "lvn" + (sealed ? " sealed" : ""), sealed ? "封存" : levelWord(levels[team])));
    root.append(row);
  });
  const now = el("div", "tile-now");
  const t = topPlay(state);
  if (state.phase === "playing" && t && playCount(t)) {
    now.append(el("span", "who", (SEAT[t.seat] || {}).zh || t.seat));
    now.append(playRow(t, state.level, "mini"));
    if (sealedPlay(t)) now.append(el("span", "count", playWords(t).split(" · ")[0]));
  } else if (state.phase === "match_over") now.append(el("span", desk ? "corrected" : "", matchWords(state, chart, desk)));
  else if (state.last_result) now.append(el("span", "", resultWords(state, lastResultOf(state, chart), chart)));
  if (state.turn && !gone) now.append(el("span", "turn", "▶ " + seatWord(state.turn)));
  root.append(now);
  const alerts = alertsOf(tab || {});
  if (alerts.length) {
    const a = el("div", "tile-alerts");
    alerts.forEach((x) => a.append(el("span", "alert", x)));
    root.append(a);
  }
}

/** What a tile is drawn from, as one string (``drawTile``'s inputs: the table's state, status, health and chart,
 *  and the standings' version): the overview redraws a tile only when it changed, so a hall of many tables on a
 *  slow screen rebuilds the one table that moved, not every tile five times a second. Its clocks tick apart. */
function tileSignature(tab, standings) {
  const t = tab || {};
  return JSON.stringify([t.state || null, t.status || null, t.health || null, t.chart || null,
    standings ? [standings.version, standings.round] : null]);
}

/** A score as a screen shows it: a whole number as it is, else at most two decimals (a duplicate total is a sum
 *  of differences from means: 1.3333333333 would fill the column). */
function scoreWords(x) {
  if (typeof x !== "number" || !isFinite(x)) return "—";
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100);
}

function drawStandings(root, standings, limit) {
  root.replaceChildren();
  root.append(el("h2", "", "积分榜 · Standings"));
  if (!standings || !standings.rows || !standings.rows.length) {
    root.append(el("p", "waiting", "尚无成绩 · no results yet"));
    return;
  }
  // which round they stand after, and how many of the teams are shown: a team below the list finds itself on
  // /standings (every team, public), named here
  const n = standings.round;
  const when = !n ? "" : standings.in_play ? "第 " + n + " 轮进行中 · round " + n + " in play"
    : "第 " + n + " 轮后 · after round " + n;
  const rows = standings.rows.length, shown = Math.min(rows, limit || rows);
  // a duplicate event ranks by the teams' duplicate totals first (rules §12, standings.compute): shown first, and
  // said, or a team of 0 场分 above one of 2 would look wrong
  const dup = !!standings.duplicate;
  const ko = standings.knockout_ranked;  // a finished knockout ranks its teams by their places in it
  const sub = el("div", "st-sub", [when, dup ? "复式总分优先 · ranked by duplicate total first" : "",
    ko ? "前 " + ko + " 名按淘汰赛名次 · places 1-" + ko + " by the knockout" : "",
    shown < rows ? "前 " + shown + " 名 / 共 " + rows + " 队 · top " + shown + " of " + rows + " · 全部 all: " +
    location.origin + "/standings" : ""].filter(Boolean).join(" · "));
  if (when || dup || ko || shown < rows) root.append(sub);
  const table = el("table", "standings" + (dup ? " dup" : ""));
  const head = el("tr");
  (dup ? ["名次 #", "队 Team", "复式 Dup.", "场分 MP", "级差分 LP"] : ["名次 #", "队 Team", "场分 MP", "级差分 LP"])
    .forEach((h, i) => head.append(el("th", i >= 2 ? "num" : "", h)));  // over right-aligned figures, right-aligned
  table.append(head);
  standings.rows.slice(0, limit || rows).forEach((r) => {
    const tr = el("tr");
    tr.append(el("td", "rank", r.rank));
    const name = el("td", "name");
    name.append(el("div", "", r.name));
    if (r.players && r.players.length) name.append(el("div", "players", r.players.join(" · ")));
    if (r.withdrawn) name.append(el("div", "withdrawn", "第" + r.withdrawn.after_round + "轮后退赛 · withdrew after round " + r.withdrawn.after_round));
    tr.append(name);
    if (dup) tr.append(el("td", "num dup", scoreWords(r.duplicate)));
    tr.append(el("td", "num", r.match_points));
    tr.append(el("td", "num", r.level_points));
    table.append(tr);
  });
  root.append(table);
}

/** The knockout's bracket (standings.knockout): a column per round, each match a box with the places it decides
 *  (决赛 · Final ...), its table and its two teams, the winner marked; a team not known yet is 待定 TBD, a bye's
 *  empty slot 轮空 bye. Hidden before a knockout begins. */
function drawBracket(root, standings) {
  root.replaceChildren();
  const ko = standings && standings.knockout;
  root.hidden = !ko || !Array.isArray(ko.rounds) || !ko.rounds.length;
  if (root.hidden) return;
  root.append(el("h2", "", "淘汰赛对阵 · Knockout bracket"));
  const columns = el("div", "bracket");
  ko.rounds.forEach((r) => {
    const column = el("div", "ko-round");
    column.append(el("div", "ko-round-head", r.round ? "第 " + r.round + " 轮 · Round " + r.round : ""));
    (r.matches || []).forEach((m) => {
      const final = Array.isArray(m.places) && m.places[0] === 1 && m.places[1] === 2;
      const box = el("div", "ko-match" + (final ? " final" : ""));
      box.append(el("div", "ko-stage", m.stage + (m.table ? " · 牌桌 " + m.table + " Table " + m.table : "")));
      [0, 1].forEach((i) => {
        const team = m.teams && m.teams[i];
        const waits = Array.isArray(m.waiting) && m.waiting[i];
        const how = m.winner === i ? " won" : m.winner === 1 - i ? " lost" : "";
        box.append(el("div", "ko-team" + how + (team ? "" : " blank"), team || (waits ? "待定 TBD" : "轮空 bye")));
      });
      column.append(box);
    });
    columns.append(column);
  });
  root.append(columns);
}

// -- the live feed ---------------------------------------------------------------------------------------
// Calls draw(snapshot) after changes, at most five times a second (a burst of messages is drawn once, and a
// phone's battery is spared); reconnects forever.
// A table publishes an event and then the state it leads to (consecutive seq): an event newer than the state
// shown is held until that state arrives (at most HOLD_MS), so the trick history and the turn banner change
// together. While the page has lost the server (body.disconnected) or the server the broker (body.stale), a
// banner above the page says as of when the picture is, and the live parts are dimmed.
const HOLD_MS = 1500;

function showLive() {
  const body = document.body;
  const lost = LIVE.link && LIVE.link.connected === false;
  body.classList.toggle("stale", !!lost);
  body.classList.toggle("disconnected", !!LIVE.lostAt);
  const at = staleAt();
  const stale = document.querySelector(".stale-banner");
  if (stale) {
    stale.textContent = lost ? "数据中断，显示的是 " + clockWords(at) + " 的状态 · data lost, showing the state as of " + clockWords(at) : "";
  }
  const conn = document.querySelector(".conn");
  if (conn) {
    conn.textContent = "连接中断，正在重连 · Reconnecting…" + (LIVE.lostAt ? " 显示的是 " + clockWords(LIVE.lostAt) +
      " 的状态 · showing the state as of " + clockWords(LIVE.lostAt) : "");
  }
  tickClocks();
}

function liveFeed(query, draw) {
  const snap = { tables: {}, standings: null, link: null, boards: [] };
  let queued = false;
  let last = 0;
  function redraw() {
    if (queued) return;
    queued = true;
    setTimeout(() => requestAnimationFrame(() => { queued = false; last = Date.now(); draw(snap); }),
      Math.max(0, 200 - (Date.now() - last)));
  }
  const held = {};  // table -> events newer than its state, waiting for it
  function release(name, st) {  // the held events older than the state st (all of them without st)
    const tab = snap.tables[name];
    const waiting = held[name];
    if (!tab || !waiting) return;
    const now = waiting.events.filter((ev) => !st || ev.epoch !== st.epoch || !(ev.seq >= st.seq));
    waiting.events = waiting.events.filter((ev) => !now.includes(ev));
    now.forEach((ev) => tellEvent(tab, ev));
    if (!waiting.events.length) { clearTimeout(waiting.timer); delete held[name]; }
  }
  function hold(name, tab, ev) {
    const st = tab.state;
    const newer = st && typeof ev.seq === "number" && typeof st.seq === "number" && ev.epoch === st.epoch && ev.seq > st.seq;
    if (!newer && !held[name]) return false;
    const waiting = held[name] || (held[name] = { events: [], timer: null });
    waiting.events.push(ev);
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => { release(name); redraw(); }, HOLD_MS);
    return true;
  }
  let tries = 0;
  let heard = Date.now();  // anything on the stream, the server's pings included (every 5 s when quiet)
  let current = null;
  // A network that stalls without closing the connection sends no error: the page would show a frozen picture
  // as live, clock running. Three pings' silence is a lost stream: said as such, and connected again.
  setInterval(() => {
    if (!current || Date.now() - heard < STALL_MS) return;
    if (!LIVE.lostAt) LIVE.lostAt = heard / 1000;
    showLive();
    redraw();
    current.close();
    heard = Date.now();  // the next try gets its own time to answer
    connect();
  }, 1000);
  function connect() {
    const src = new EventSource("/events" + (query ? "?" + query : ""));
    current = src;
    const alive = () => { heard = Date.now(); };
    src.addEventListener("ping", alive);
    src.addEventListener("open", alive);
    src.addEventListener("snapshot", (e) => {
      alive();
      const data = JSON.parse(e.data);
      if (typeof data.ping_s === "number" && data.ping_s > 0) STALL_MS = 3000 * data.ping_s + 1000;
      Object.keys(held).forEach((name) => { clearTimeout(held[name].timer); delete held[name]; });
      snap.event = data.event;
      snap.tables = data.tables || {};
      snap.standings = data.standings;
      snap.boards = data.boards || [];
      snap.link = LIVE.link = data.link || null;
      LIVE.lostAt = null;
      tries = 0;
      showLive();
      redraw();
    });
    ["state", "status", "results", "health", "events"].forEach((kind) => {
      src.addEventListener(kind, (e) => {
        alive();
        const msg = JSON.parse(e.data);
        const tab = snap.tables[msg.table] || (snap.tables[msg.table] = { table: msg.table, events: [], chart: [] });
        if (kind === "events") {
          if (hold(msg.table, tab, msg.data)) return;
          tellEvent(tab, msg.data);
        } else if (kind === "results") {
          tab.last_result = msg.data;
          const r = msg.data || {};
          if (r.type !== "match_result" && typeof r.deal === "number" && r.levels_after) {
            addPoint(tab, { deal: r.deal, finish: r.finish, winner: r.winner, up: r.up, levels: r.levels_after, match: r.match });
          }
        } else {
          tab[kind] = msg.data;
          if (kind === "state" && msg.data) { release(msg.table, msg.data); takeReleased(tab, msg.table, snap.boards); }
        }
        redraw();
      });
    });
    src.addEventListener("chart", (e) => {  // deals recalled from the desk's records (hub.recall_points)
      const msg = JSON.parse(e.data);
      const tab = snap.tables[msg.table] || (snap.tables[msg.table] = { table: msg.table, events: [], chart: [] });
      (msg.data || []).forEach((point) => addPoint(tab, point));
      redraw();
    });
    src.addEventListener("board", (e) => {  // a duplicate board the desk released (hub.release_board)
      const b = JSON.parse(e.data).data;
      if (!b) return;
      snap.boards = snap.boards.filter((x) => x.round !== b.round || x.board !== b.board).concat([b]).slice(-500);
      (b.tables || []).forEach((row) => { if (snap.tables[row.table]) takeReleased(snap.tables[row.table], row.table, [b]); });
      redraw();
    });
    src.addEventListener("standings", (e) => { snap.standings = JSON.parse(e.data).data; redraw(); });
    src.addEventListener("link", (e) => { snap.link = LIVE.link = JSON.parse(e.data).data || null; showLive(); redraw(); });
    // a connection that opens is not yet a live page: the snapshot that follows is (it clears lostAt)
    src.onerror = () => {
      if (!LIVE.lostAt) LIVE.lostAt = Date.now() / 1000;
      showLive();
      redraw();
      if (src.readyState === EventSource.CLOSED) { src.close(); setTimeout(connect, 1000 + (tries++ % 5) * 500); }
    };
  }
  connect();
  setInterval(tickClocks, 1000);
  return { snap, redraw, drawNow: () => draw(snap) };
}

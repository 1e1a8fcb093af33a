// Live table displays (掼蛋 现场显示): draws a table's public state from the desk's Server-Sent Events.
// The server sends a "snapshot" first (so a screen opened mid-deal shows the deal at once), then each change.
// EventSource reconnects by itself after a network or server drop, and every reconnect starts with a snapshot.
"use strict";

const SUITS = { S: ["♠", "black"], H: ["♥", "red"], C: ["♣", "black"], D: ["♦", "red"] };
const SEAT_NAMES = { S: "南 S", E: "东 E", N: "北 N", W: "西 W" };
const PHASES = {
  idle: "空闲 Idle", dealing: "发牌 Dealing", tribute: "进贡 Tribute", playing: "出牌 Playing",
  deal_over: "本副结束 Deal over", match_over: "比赛结束 Match over", paused: "暂停 Paused",
};
const TYPES = {
  single: "单张", pair: "对子", triple: "三张", full_house: "三带二", straight: "顺子", tube: "连对",
  plate: "钢板", bomb: "炸弹", straight_flush: "同花顺", four_jokers: "四王",
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function cardEl(code) {
  const c = String(code).split("#")[0];
  if (c === "HR") return el("span", "card joker red", "大王");
  if (c === "SB") return el("span", "card joker black", "小王");
  const suit = SUITS[c[0]] || ["?", "black"];
  const rank = c.slice(1) === "T" ? "10" : c.slice(1);
  const e = el("span", "card " + suit[1]);
  e.dataset.card = c;
  e.append(el("span", "rank", rank), el("span", "suit", suit[0]));
  return e;
}

function cardsEl(codes) {
  const box = el("span", "cards");
  (codes || []).forEach((c) => box.append(cardEl(c)));
  return box;
}

// The state's seats may be a map {S: {...}} or a list [{seat: "S", ...}].
function seatsOf(state) {
  const out = {};
  const seats = state.seats || {};
  if (Array.isArray(seats)) seats.forEach((s) => { if (s && s.seat) out[s.seat] = s; });
  else Object.assign(out, seats);
  return out;
}

function teamName(state, team) {
  const t = (state.teams || {})[team];
  if (!t) return team;
  return typeof t === "string" ? t : (t.name || team);
}

function playerName(state, team, seat) {
  const t = (state.teams || {})[team];
  const players = t && typeof t === "object" ? t.players || {} : {};
  return players[seat] || "";
}

function cardsLeft(seat) {
  for (const k of ["cards_left", "cards", "count", "left"]) {
    if (typeof seat[k] === "number") return seat[k];
  }
  return null;
}

// The trick may be a list of plays, {plays: [...]}, or just the play to beat {seat, cards, reading, passes}.
function trickOf(state) {
  const t = state.trick || state.current_trick;
  if (!t) return [];
  if (Array.isArray(t)) return t;
  if (Array.isArray(t.plays)) return t.plays;
  return t.seat ? [t] : [];
}

function readingText(r) {
  if (!r) return "";
  return (TYPES[r.type] || r.type) + (r.rank ? " " + r.rank : "");
}

function drawTable(root, name, tab) {
  root.replaceChildren();
  const state = (tab && tab.state) || {};
  const status = (tab && tab.status) || {};
  const head = el("div", "head");
  head.append(el("span", "tname", name));
  const online = status.online === false ? "offline 离线" : "online 在线";
  head.append(el("span", "online " + (status.online === false ? "off" : "on"), online));
  head.append(el("span", "phase", PHASES[state.phase] || state.phase || "—"));
  const levels = state.levels || {};
  const lv = el("span", "levels");
  ["NS", "EW"].forEach((t) => lv.append(el("span", "lv lv-" + t, teamName(state, t) + " 级 " + (levels[t] || "—"))));
  if (state.level) lv.append(el("span", "lv playing", "打 " + state.level + " 级牌 level"));
  head.append(lv);
  root.append(head);

  const seats = seatsOf(state);
  const board = el("div", "board");
  ["N", "W", "E", "S"].forEach((s) => {
    const seat = seats[s] || {};
    const box = el("div", "seat seat-" + s + (state.turn === s ? " turn" : ""));
    box.dataset.seat = s;
    const team = seat.team || (s === "N" || s === "S" ? "NS" : "EW");
    box.append(el("div", "sname", SEAT_NAMES[s] + " · " + (seat.name || seat.player || playerName(state, team, s))));
    box.append(el("div", "steam", teamName(state, team)));
    const left = cardsLeft(seat);
    box.append(el("div", "left", left === null ? "" : "余牌 " + left + " cards"));
    const place = seat.place || seat.finished;
    if (place) box.append(el("div", "place", ["", "上游 1st", "二游 2nd", "三游 3rd", "下游 4th"][place] || place));
    if (seat.report || seat.reported || seat.ten_report) {
      box.append(el("div", "report", "报牌 ≤10"));
    }
    if (state.turn === s) box.append(el("div", "turnmark", "▶ 出牌 to play"));
    board.append(box);
  });
  const trick = el("div", "trick");
  trick.append(el("div", "label", "当前一轮 Current trick"));
  trickOf(state).forEach((p) => {
    const row = el("div", "play");
    row.dataset.seat = p.seat;
    row.append(el("span", "who", SEAT_NAMES[p.seat] || p.seat));
    if (p.pass) row.append(el("span", "pass", "不出 pass"));
    else {
      row.append(cardsEl(p.cards || p.play));
      if (p.reading) row.append(el("span", "reading", readingText(p.reading)));
    }
    if (typeof p.passes === "number" && p.passes > 0) row.append(el("span", "pass", "不出×" + p.passes + " passes"));
    trick.append(row);
  });
  board.append(trick);
  root.append(board);

  const foot = el("div", "foot");
  const last = state.last_result || state.last_deal || (tab && tab.last_result);
  if (last) {
    const finish = (last.finish || []).join(" ");
    const winner = last.winner ? teamName(state, last.winner) : "";
    foot.append(el("span", "last", "上一副 Last deal: " + (winner ? winner + " 上游 " : "") +
      (last.up ? "+" + last.up + " " : "") + finish));
  }
  const score = state.score || state.match_score;
  if (score && typeof score === "object") {
    foot.append(el("span", "score", "比分 Score " + Object.entries(score).map(([k, v]) => k + " " + v).join(" · ")));
  }
  const ev = ((tab && tab.events) || []).slice(-1)[0];
  if (ev) foot.append(el("span", "ticker", eventText(ev)));
  root.append(foot);
}

function eventText(ev) {
  const who = SEAT_NAMES[ev.seat] || ev.seat || "";
  switch (ev.type) {
    case "play": return who + " 出 " + (ev.cards || []).map((c) => c.replace("T", "10")).join(" ");
    case "pass": return who + " 不出 pass";
    case "trick_won": return who + " 赢得一轮 wins the trick";
    case "seat_out": return who + " 出完 out";
    case "report": case "ten_card_report": return who + " 报牌 reports " + (ev.cards_left || ev.count || "");
    default: return ev.type || "";
  }
}

// A live feed: calls draw(snapshot) on every change; reconnects forever.
function liveFeed(table, draw) {
  const snap = { tables: {} };
  let since = 0;
  function connect() {
    const src = new EventSource("/events" + (table ? "?table=" + encodeURIComponent(table) : ""));
    src.addEventListener("snapshot", (e) => { Object.assign(snap, JSON.parse(e.data)); draw(snap); });
    ["state", "status", "results", "health", "events"].forEach((kind) => {
      src.addEventListener(kind, (e) => {
        const msg = JSON.parse(e.data);
        const tab = snap.tables[msg.table] || (snap.tables[msg.table] = { table: msg.table, events: [] });
        if (kind === "events") { tab.events = (tab.events || []).concat([msg.data]).slice(-20); }
        else if (kind === "results") tab.last_result = msg.data;
        else tab[kind] = msg.data;
        draw(snap);
      });
    });
    src.onopen = () => { document.body.classList.remove("disconnected"); };
    src.onerror = () => {
      document.body.classList.add("disconnected");
      if (src.readyState === EventSource.CLOSED) { src.close(); setTimeout(connect, 1000 + (since++ % 5) * 500); }
    };
  }
  connect();
}

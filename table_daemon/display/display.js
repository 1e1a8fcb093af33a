// Live table displays (掼蛋 现场显示): one table's view for a hall screen or a phone, and the hall overview of
// every table, drawn from the server's Server-Sent Events. The server sends a "snapshot" first (so a screen
// opened mid-deal shows the whole deal at once: state, the deal's events, the level chart, standings), then
// each change. EventSource reconnects by itself after a network or server drop, and every reconnect starts
// with a fresh snapshot. Needs cards.js.
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
  if (ev.type === "deal_over") {
    const point = { deal: ev.deal, finish: ev.finish, winner: ev.winner, up: ev.up, levels: ev.levels };
    tab.chart = (tab.chart || []).filter((p) => p.deal !== ev.deal).concat([point]);
  }
}

/** Tricks of the deal from its events: [{n, plays: [{seat, cards, reading} | {seat, pass}], winner}]. */
function storyOf(events) {
  const tricks = [];
  const notes = [];
  let cur = null;
  let tribute = [];
  for (const ev of events || []) {
    switch (ev.type) {
      case "deal_started": tricks.length = 0; cur = null; tribute = []; break;
      case "play":
        if (!cur) { cur = { n: tricks.length + 1, plays: [] }; tricks.push(cur); }
        cur.plays.push({ seat: ev.seat, cards: ev.cards || [], reading: ev.reading, left: ev.cards_left });
        break;
      case "pass": if (cur) cur.plays.push({ seat: ev.seat, pass: true }); break;
      case "trick_won": if (cur) { cur.winner = ev.seat; cur.jiefeng = !!ev.jiefeng; cur = null; } break;
      case "seat_out": if (cur) cur.plays.push({ seat: ev.seat, out: ev.place }); break;
      case "tribute": tribute.push({ kind: "进贡 tribute", from: ev.seat, to: ev.to, card: ev.card }); break;
      case "return": tribute.push({ kind: "还贡 return", from: ev.seat, to: ev.to, card: ev.card }); break;
      case "correction": case "referee": case "penalty": case "paused": case "resumed": case "timeout":
        notes.push(ev); break;
      default: break;
    }
  }
  return { tricks, open: cur, tribute, notes };
}

// -- the last deal in words ------------------------------------------------------------------------------
function resultWords(state, r) {
  if (!r || !r.finish || !r.finish.length) return "";
  const first = r.finish[0];
  const team = teamOf(first);
  const partner = partnerOf(first);
  const place = r.finish.indexOf(partner);
  const how = place === 1 ? "双下 double-down" : place === 2 ? "搭档三游 partner 3rd" : "搭档下游 partner last";
  const up = r.up ? "升" + r.up + "级 up " + r.up : "不升级 no level up";
  const after = r.levels_after || r.levels;
  const lv = after ? " → " + levelWord(after[team]) : "";
  return "第" + (r.deal || "?") + "副 Deal " + (r.deal || "?") + "：上游 1st " + seatLabel(state, first) + " · " + how +
    " · " + teamName(state, team) + " " + up + lv;
}

function matchWords(state) {
  const m = state.match_result;
  if (!m) return "";
  const lv = m.levels || state.levels || {};
  const score = teamName(state, "NS") + " " + levelWord(lv.NS) + " : " + levelWord(lv.EW) + " " + teamName(state, "EW");
  return (m.winner ? "比赛结束 · " + teamName(state, m.winner) + " 胜 wins — " : "比赛结束 Match over — ") + score;
}

// -- pieces ----------------------------------------------------------------------------------------------
function timerText(state) {
  const t = state.timer;
  if (!t || !state.turn) return "";
  const now = Date.now() / 1000;
  if (t.deadline) {
    const left = Math.max(0, Math.round(t.deadline - now));
    return "剩 " + left + " 秒 · " + left + " s left";
  }
  if (t.since) {
    const used = Math.max(0, Math.round(now - t.since));
    return "用时 " + used + " 秒 · " + used + " s";  // words, not an emoji clock: a hall screen may lack the font
  }
  return "";
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
    info.append(el("span", "left", "余 " + s.cards_left + " 张 cards"));
    if (s.reported && s.cards_left > 0) info.append(el("span", "report", "报牌 " + s.cards_left));
  }
  if (state.turn === seat) {
    info.append(el("span", "turnmark", "▶ 出牌 to play"));
    info.append(el("span", "timer", timerText(state)));
  }
  box.append(info);
  const act = el("div", "act");
  if (lastAct) {
    if (lastAct.pass) act.append(el("span", "pass", "不出 pass"));
    else if (lastAct.cards) {
      act.append(cardRow(lastAct.cards, { level: state.level, reading: lastAct.reading }));
      act.append(el("div", "reading", playName(lastAct.reading)));
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
  const matches = open && t && open.plays.some((p) => p.cards && p.seat === t.seat &&
    p.cards.join() === (t.cards || []).join());
  // the trick's plays from the state (a screen that joined mid-trick has no events of its start), then what the
  // events told of this trick, passes included
  trickPlays(state).forEach((p) => { acts[p.seat] = { seat: p.seat, cards: p.cards, reading: p.reading }; });
  if (matches) open.plays.forEach((p) => { if (!p.out) acts[p.seat] = p; });
  if (t) acts[t.seat] = { seat: t.seat, cards: t.cards, reading: t.reading, best: true };
  const last = story.tricks[story.tricks.length - 1];
  if (!t && state.phase === "playing" && last && last.winner) {  // a new trick to lead: the last one, faded
    last.plays.forEach((p) => { if (!p.out) acts[p.seat] = Object.assign({ prev: true }, p); });
    const top = last.plays.filter((p) => p.cards).pop();
    if (top) acts[top.seat].best = true;
  }
  return acts;
}

/** The middle of the table: which trick, whose turn (lead or follow), what is to beat. */
function trickBanner(state, story) {
  const box = el("div", "trick-banner");
  const n = story.open ? story.open.n : story.tricks.length + 1;
  box.append(el("div", "tb-n", "第 " + n + " 轮 · Trick " + n));
  if (state.turn) {
    box.append(el("div", "tb-turn", "▶ " + seatLabel(state, state.turn) + (topPlay(state) ? " 出牌 to play" : " 领出 to lead")));
  }
  const t = topPlay(state);
  if (t && t.reading) {
    const beat = el("div", "tb-beat", "要压 to beat: " + playName(t.reading) + " — " + seatWord(t.seat));
    box.append(beat);
    const passes = trickPasses(state);
    if (passes) box.append(el("div", "tb-pass", passes + " 家不出 · " + passes + " passed"));
  } else {
    const last = story.tricks[story.tricks.length - 1];
    if (last && last.winner) {
      box.append(el("div", "tb-pass", "上一轮 " + seatLabel(state, last.winner) + " 胜" + (last.jiefeng ? "，接风 " + seatWord(state.turn) : "") +
        " · last trick won by " + SEAT[last.winner].en));
    }
  }
  return box;
}

function scoreboard(state) {
  const box = el("div", "scoreboard");
  const levels = state.levels || {};
  ["NS", "EW"].forEach((team) => {
    const side = el("div", "side team-" + team + (state.played === team ? " playing" : ""));
    side.dataset.team = team;
    const names = el("div", "tnames");
    names.append(el("div", "tn", teamName(state, team)));
    const seats = team === "NS" ? ["N", "S"] : ["E", "W"];
    names.append(el("div", "tp", seats.map((s) => playerName(state, s) || seatWord(s)).join(" · ")));
    side.append(names);
    const lv = el("div", "lvbox");
    lv.append(el("div", "lvl", "级 level"));
    lv.append(el("div", "lvn", levelWord(levels[team])));
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
    li.append(el("span", "tno", "第" + tr.n + "轮"));
    const plays = el("span", "tplays");
    tr.plays.forEach((p) => {
      if (p.out) return;
      const one = el("span", "tp1" + (p.pass ? " pass" : ""));
      one.dataset.seat = p.seat;
      one.append(el("b", "", SEAT[p.seat] ? SEAT[p.seat].zh : p.seat));
      if (p.pass) one.append(el("span", "", "不出"));
      else {
        one.append(cardRow(p.cards, { level: state.level, reading: p.reading, cls: "mini" }));
        one.append(el("span", "pn", playName(p.reading).split(" · ")[0]));
      }
      plays.append(one);
    });
    li.append(plays);
    if (tr.winner) li.append(el("span", "twin", (SEAT[tr.winner] ? SEAT[tr.winner].zh : tr.winner) + " 胜" +
      (tr.jiefeng ? " 接风" : "")));
    list.append(li);
  });
  if (!tricks.length) list.append(el("li", "empty", "尚未出牌 · no play yet"));
  box.append(list);
  return box;
}

/** The match's levels deal by deal: one line per team (SVG). */
function chartEl(state, chart) {
  const box = el("div", "chart");
  box.append(el("h2", "", "级数走势 · Levels deal by deal"));
  const pts = [{ deal: 0, levels: { NS: "2", EW: "2" } }].concat((chart || []).filter((p) => p.levels));
  if (!(chart || []).length && state.levels && state.deals_played) pts.push({ deal: state.deals_played, levels: state.levels });
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
  ["NS", "EW"].forEach((team) => {
    const line = pts.map((p) => x(p.deal) + "," + y(p.levels[team])).join(" ");
    g.append(svg("polyline", { points: line, class: "line line-" + team }));
    pts.forEach((p) => {
      const dot = svg("circle", { cx: x(p.deal), cy: y(p.levels[team]), r: 5, class: "dot dot-" + team });
      if (p.deal) dot.dataset.deal = p.deal;
      g.append(dot);
    });
  });
  box.append(g);
  const legend = el("div", "legend");
  ["NS", "EW"].forEach((t) => legend.append(el("span", "key team-" + t, teamName(state, t))));
  box.append(legend);
  box.dataset.points = String(pts.length - 1);
  return box;
}

function outOrder(state) {
  const seats = state.seats || {};
  return PLAY_ORDER.filter((s) => seats[s] && seats[s].place).sort((a, b) => seats[a].place - seats[b].place);
}

// -- one table, large (hall screen) or as a tile ----------------------------------------------------------
function drawTable(root, name, tab) {
  const state = (tab && tab.state) || {};
  const status = (tab && tab.status) || {};
  const story = storyOf(tab && tab.events);
  root.replaceChildren();
  const top = el("header", "top");
  const title = el("div", "title");
  title.append(el("span", "tname", "第 " + name + " 桌"));
  title.append(el("span", "tname-en", "Table " + name));
  if (status.online === false) title.append(el("span", "alert", "离线 offline"));
  top.append(title);
  const what = el("div", "what");
  what.append(el("div", "deal", (state.match ? "第" + state.match + "场 " : "") + (state.deal ? "第" + state.deal + "副" : "") +
    (state.deal ? " · Deal " + state.deal : "")));
  what.append(el("div", "phase", PHASES[state.phase] || state.phase || "—"));
  top.append(what);
  top.append(scoreboard(state));
  const playing = el("div", "playing-level");
  if (state.level) {
    playing.append(el("div", "pl-l", "打 " + rankWord(state.level) + " · playing " + rankWord(state.level)));
    playing.append(el("div", "pl-t", teamName(state, state.played) + " 的级"));
    const ex = el("div", "pl-cards");
    ex.append(cardFace("H" + state.level, { level: state.level }));
    ex.append(cardFace("S" + state.level, { level: state.level }));
    playing.append(ex);
    playing.append(el("div", "pl-k", "红心级牌为配 · ♥" + rankWord(state.level) + " is wild"));
  }
  top.append(playing);
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
  if (state.phase === "tribute" && story.tribute.length) {
    const tb = el("div", "tribute");
    story.tribute.forEach((t) => {
      const row = el("div", "trib");
      row.append(el("span", "", t.kind + " " + seatWord(t.from) + " → " + seatWord(t.to)));
      row.append(cardRow([t.card], { level: state.level, cls: "mini" }));
      tb.append(row);
    });
    centre.append(tb);
  }
  const words = state.match_result ? matchWords(state) : resultWords(state, state.last_result);
  if (words && state.phase !== "playing") centre.append(el("div", "result-words", words));
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
  last.append(el("div", "result-words", resultWords(state, state.last_result) || "本场尚无结果 · no deal finished yet"));
  if (state.match_result) last.append(el("div", "match-words", matchWords(state)));
  const earlier = ((tab && tab.chart) || []).filter((p) => p.finish && (!state.last_result || p.deal !== state.last_result.deal));
  if (earlier.length) {
    const list = el("ol", "deals");
    earlier.slice(-3).reverse().forEach((p) => list.append(el("li", "", resultWords(state, p))));
    last.append(list);
  }
  const end = state.match_end || {};
  if (end.method) last.append(el("div", "match-end", "赛制 Match: " + (end.method === "deals" ? end.deals + " 副 deals" :
    end.method === "time" ? end.minutes + " 分钟 minutes" : end.method === "pass_a" ? "过A为止 until A is passed" :
      end.minutes + " 分钟 min / " + end.deals + " 副 deals") + (state.deals_played ? " · 已打 " + state.deals_played + " 副 played" : "")));
  foot.append(last);
  root.append(foot);
}

// -- tiles of the overview -------------------------------------------------------------------------------
function alertsOf(tab) {
  const out = [];
  const status = tab.status || {}, health = tab.health || {}, state = tab.state || {};
  if (status.online === false) out.push("离线 offline");
  if (state.phase === "paused") out.push("暂停 paused");
  const dealer = health.dealer || {};
  if (dealer.state && !["ready", "idle", "dealing", "done"].includes(dealer.state)) out.push("发牌机 dealer " + dealer.state);
  if ((health.camera || {}).lost) out.push("摄像头 camera lost");
  if ((health.camera || {}).dim) out.push("摄像头过暗 camera too dark");
  if (state.pending_declaration) out.push("待声明 declaration");
  return out;
}

function drawTile(root, name, tab) {
  const state = (tab && tab.state) || {};
  root.replaceChildren();
  const head = el("div", "tile-head");
  head.append(el("span", "tname", name));
  head.append(el("span", "deal", state.deal ? "第" + state.deal + "副" : ""));
  head.append(el("span", "phase", PHASES[state.phase] || "—"));
  root.append(head);
  const levels = state.levels || {};
  const lead = LEVEL_STEPS.indexOf(levels.NS) - LEVEL_STEPS.indexOf(levels.EW);
  ["NS", "EW"].forEach((team) => {
    const row = el("div", "tile-team team-" + team + (state.played === team ? " playing" : ""));
    row.dataset.team = team;
    row.append(el("span", "tn", teamName(state, team)));
    if ((team === "NS" && lead > 0) || (team === "EW" && lead < 0)) row.append(el("span", "lead", "领先 leads"));
    row.append(el("span", "lvn", levelWord(levels[team])));
    root.append(row);
  });
  const now = el("div", "tile-now");
  const t = topPlay(state);
  if (state.phase === "playing" && t && t.cards) {
    now.append(el("span", "who", (SEAT[t.seat] || {}).zh || t.seat));
    now.append(cardRow(t.cards, { level: state.level, reading: t.reading, cls: "mini" }));
  } else if (state.phase === "match_over") now.append(el("span", "", matchWords(state)));
  else if (state.last_result) now.append(el("span", "", resultWords(state, state.last_result)));
  if (state.turn) now.append(el("span", "turn", "▶ " + seatWord(state.turn)));
  root.append(now);
  const alerts = alertsOf(tab || {});
  if (alerts.length) {
    const a = el("div", "tile-alerts");
    alerts.forEach((x) => a.append(el("span", "alert", x)));
    root.append(a);
  }
}

function drawStandings(root, standings, limit) {
  root.replaceChildren();
  root.append(el("h2", "", "积分榜 · Standings"));
  if (!standings || !standings.rows || !standings.rows.length) {
    root.append(el("p", "waiting", "尚无成绩 · no results yet"));
    return;
  }
  const table = el("table", "standings");
  const head = el("tr");
  ["名次 #", "队 Team", "场分 MP", "级差分 LP"].forEach((h) => head.append(el("th", "", h)));
  table.append(head);
  standings.rows.slice(0, limit || 12).forEach((r) => {
    const tr = el("tr");
    tr.append(el("td", "rank", r.rank));
    const name = el("td", "name");
    name.append(el("div", "", r.name));
    if (r.players && r.players.length) name.append(el("div", "players", r.players.join(" · ")));
    tr.append(name);
    tr.append(el("td", "num", r.match_points));
    tr.append(el("td", "num", r.level_points));
    table.append(tr);
  });
  root.append(table);
}

// -- the live feed ---------------------------------------------------------------------------------------
// Calls draw(snapshot) after changes, at most five times a second (a burst of messages is drawn once, and a
// phone's battery is spared); reconnects forever.
function liveFeed(query, draw) {
  const snap = { tables: {}, standings: null };
  let queued = false;
  let last = 0;
  function redraw() {
    if (queued) return;
    queued = true;
    setTimeout(() => requestAnimationFrame(() => { queued = false; last = Date.now(); draw(snap); }),
      Math.max(0, 200 - (Date.now() - last)));
  }
  let tries = 0;
  function connect() {
    const src = new EventSource("/events" + (query ? "?" + query : ""));
    src.addEventListener("snapshot", (e) => {
      const data = JSON.parse(e.data);
      snap.event = data.event;
      snap.tables = data.tables || {};
      snap.standings = data.standings;
      tries = 0;
      redraw();
    });
    ["state", "status", "results", "health", "events"].forEach((kind) => {
      src.addEventListener(kind, (e) => {
        const msg = JSON.parse(e.data);
        const tab = snap.tables[msg.table] || (snap.tables[msg.table] = { table: msg.table, events: [], chart: [] });
        if (kind === "events") tellEvent(tab, msg.data);
        else if (kind === "results") tab.last_result = msg.data;
        else tab[kind] = msg.data;
        redraw();
      });
    });
    src.addEventListener("standings", (e) => { snap.standings = JSON.parse(e.data).data; redraw(); });
    src.onopen = () => { document.body.classList.remove("disconnected"); };
    src.onerror = () => {
      document.body.classList.add("disconnected");
      if (src.readyState === EventSource.CLOSED) { src.close(); setTimeout(connect, 1000 + (tries++ % 5) * 500); }
    };
  }
  connect();
  return { snap, redraw, drawNow: () => draw(snap) };
}

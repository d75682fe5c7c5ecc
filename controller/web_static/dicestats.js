"use strict";
// The dice record (issue 22): each die's faces over the games played, a verdict on its
// fairness in the player's language, and how the rolls came to the table.

let diceRecord = null; // the last /api/dice_stats reply
let diceSeen = null; // the game and moves it was fetched for

async function followDice(live) {
  const at = `${live.started}:${live.log.length}`;
  if (at === diceSeen) return;
  diceSeen = at;
  try {
    const reply = await (await fetch("/api/dice_stats")).json();
    if (reply.ok) diceRecord = reply;
  } catch {
    return; // the page says when the table is offline
  }
  drawDiceRecord();
}

const SOURCES = ["read", "confirmed", "corrected", "typed", "virtual"];

// A face or a die in the words of the game it was rolled in, which may not be the one on the
// table (the walk: a Voodoo table said Akuma's "second chance", in English under French).
function tallyWord(game, part) {
  return wordOf(game, "words", part) ?? wordOf(game, "players", part) ?? readable(part);
}

function verdictText(verdict, game) {
  const { face, rolls } = verdict.params;
  const key = `dice_${verdict.key}`;
  const one = rolls === 1 && `${key}_one` in STRINGS.en ? `${key}_one` : key; // "1 roll", not "1 rolls"
  return t(one, { ...verdict.params, face: face && tallyWord(game, face) });
}

function tallyItem(tally) {
  const most = Math.max(1, ...Object.values(tally.faces));
  const title = wordOf(tally.game, "dice", tally.kind)?.[0] ?? tally.kind;
  const die = tally.die ? `${tallyWord(tally.game, tally.die)} ${title}` : title;
  const verdict = tally.verdict;
  const bars = Object.entries(tally.faces).map(([face, count]) =>
    el("div", { class: "bar", title: `${face}: ${count}` },
      el("span", { class: "face", text: tallyWord(tally.game, face) }),
      el("span", { class: "fill", style: `width: ${(100 * count) / most}%` }),
      el("span", { class: "count", text: String(count) })));
  return el("li", { class: verdict.warn ? "warn" : "", "data-die": `${tally.game}:${tally.kind}:${tally.die ?? ""}` },
    el("strong", { text: `${gameName(tally.game)} · ${die}` }),
    el("p", { class: "verdict", text: verdictText(verdict, tally.game) }),
    el("div", { class: "bars" }, ...bars));
}

function gameName(game) {
  return snap?.games?.[game]?.titles?.[lang] ?? game;
}

function drawDiceRecord() {
  if (!diceRecord || typeof $ !== "function") return;
  const { tallies, sources } = diceRecord;
  // A table that has read no dice, playing a game of cards alone, has no dice to speak of.
  $("dice-record").hidden = tallies.length === 0 && snap?.games?.[snap.game]?.dice?.length === 0;
  $("dice-record-none").hidden = tallies.length > 0;
  $("dice-tallies").replaceChildren(...tallies.map(tallyItem));
  const total = Object.values(sources).reduce((a, b) => a + b, 0);
  $("dice-sources").hidden = total === 0;
  $("dice-sources").textContent = total === 0 ? "" : t("dice_sources", {
    rolls: total,
    shares: Object.entries(sources)
      .sort(([a], [b]) => SOURCES.indexOf(a) - SOURCES.indexOf(b))
      .map(([source, n]) => `${t(`source_${source}`)} ${Math.round((100 * n) / total)} %`)
      .join(", "),
  });
}

// Decisions by pointing: a tap on a piece or a spot where decisions start lights where they may
// go, as the table's LEDs would, and a tap there takes the decision; a tap first where a piece
// may go takes the decisions that end there. The snapshot gives each decision that changes the
// board its place (`at`) and, for a piece it moves, where to (`to`); decisions the board cannot
// show (which dice to roll) stay buttons.
"use strict";

let pointFrom = null; // the place tapped first, while its destinations are lit
let handPick = null; // a card of the hand tapped first, while the places it may go are lit
let guess = []; // the pieces tapped towards a decision to find (`snap.finding` of them)
let guessWrong = false; // the last whole guess made no decision
const MANY_STARTS = 12;
const FEW_PLAYS = 4; // a card with more places to go than this is pointed, not chosen from a list

// The decisions that play `token`, a card of the hand.
function handPlays(token) {
  return snap.actions.filter((action) => action.id.split(":").includes(token));
}

// A card of the hand tapped: its few decisions offered at once; with more, the places it may
// go are marked on the board, for a tap there (a Potions card: any of 19 slots).
function pickFromHand(token) {
  handPick = null;
  const plays = handPlays(token);
  if (plays.length > FEW_PLAYS && plays.every((action) => action.at !== null && action.at !== undefined)) {
    pointFrom = null;
    handPick = token;
    render();
    document.getElementById("board").scrollIntoView({ behavior: "smooth", block: "nearest" });
    return;
  }
  decide(plays);
}

// The decisions taken by pointing; not those the players are to find (`find`: a Potions
// capture without hints), which are guessed at (`guessAt`): outlined, they would say they are open.
function pointedActions() {
  return snap.actions.filter((action) => action.at !== null && action.at !== undefined && !action.find);
}

// Places as a guess or a decision to find is keyed by: in any order.
function placesKey(places) {
  return [...places].sort().join(" ");
}

// A decision to find is guessed whole: its `snap.finding` pieces tapped, in any order, whether
// or not one is open, so that nothing is said before the guess is whole (a wrong one costs
// nothing, as the rules say); then made if it is one, else said not to be.
function guessAt(place) {
  guessWrong = false;
  guess = guess.includes(place) ? guess.filter((p) => p !== place) : [...guess, place];
  if (guess.length === snap.finding) {
    const key = placesKey(guess);
    // The pieces a decision to find moves: where it starts and the others it changes.
    const found = snap.actions.filter((action) => action.find
      && placesKey([action.at, ...(action.covers ?? [])]) === key);
    guess = [];
    if (found.length) {
      decide(found);
      return true;
    }
    guessWrong = true;
  }
  render();
  return true;
}

// Whether a tap on `place` is part of a guess: pieces to find are guessed at, where no other
// decision starts and nothing is to be put right.
function guessing(place) {
  if (!snap.finding || pointFrom !== null || handPick !== null) return false;
  if (!snap.spots[place]?.expected || Object.values(snap.spots).some(handFix)) return false;
  const actions = pointedActions();
  return !actions.some((action) => action.at === place || action.to === place);
}

// A tap on `place` (a board square, or a spot off the board): true if pointing took it, false
// if it is the simulated table's own tap (a piece laid or lifted by hand).
function pointAt(place) {
  if (guessing(place)) return guessAt(place);
  if (handPick !== null) {
    const there = handPlays(handPick).filter((action) => action.at === place);
    handPick = null;
    if (there.length) decide(there);
    else render();
    return true;
  }
  const actions = pointedActions();
  if (pointFrom !== null) {
    const there = actions.filter((action) => action.at === pointFrom && action.to === place);
    if (there.length) {
      pointFrom = null;
      decide(there);
      return true;
    }
  }
  const starting = actions.filter((action) => action.at === place);
  if (starting.length === 0 && pointFrom === null) {
    // Where a piece goes, tapped first: the decisions that end there, from wherever they start
    // (the table's move lit ^ to @ is carried out by one tap on @, not a second piece laid).
    const ending = actions.filter((action) => action.to === place);
    if (ending.length) {
      decide(ending);
      return true;
    }
    // A place that a decision changes besides where it starts (a cell of a tile other than its
    // corner): the decisions that cover it, not a piece laid there by hand.
    const covering = actions.filter((action) => action.covers?.includes(place));
    if (covering.length) {
      decide(covering);
      return true;
    }
  }
  if (starting.length === 0 || pointFrom === place) {
    const wasPointing = pointFrom !== null;
    pointFrom = null;
    if (wasPointing) render();
    return wasPointing || starting.length > 0;
  }
  if (starting.every((action) => action.to === null)) {
    // Laid, turned or taken where it lies (a trap laid, a card played): one tap.
    pointFrom = null;
    decide(starting);
    return true;
  }
  pointFrom = place;
  render();
  return true;
}

// Several decisions may end alike on the board (which card of the hand, which two potions):
// the player picks one of that handful.
function decide(actions) {
  if (actions.length === 1) {
    post("act", { id: actions[0].id });
    render();
    return;
  }
  // What each changes of the mover's own, where they differ in it: a jump and a paid power
  // that move a die alike are told apart by the die captured and the Offering paid. What they
  // all change alike is said once, above them (the walk: six paid moves, one said to cost).
  const gains = actions.map((action) =>
    gainParts(action.gains ?? snap.kind_gains?.[action.id.split(":")[0]] ?? {}));
  const shared = gains.reduce((common, parts) => common.filter((part) => parts.includes(part)));
  $("chooser-title").textContent = shared.length
    ? t("which_decision_each", { gains: shared.join(" · ") }) : t("which_decision");
  // Alike in words too (a Potions capture with one of three cards of potion 2): the parts of
  // their ids that differ, named, tell them apart ("9×2", "3×2").
  const texts = actions.map((action) => actionText(action.id));
  const said = actions.map((action, i) => {
    const alike = actions.filter((_, j) => texts[j] === texts[i]).map((other) => other.id.split(":"));
    const parts = action.id.split(":");
    const apart = alike.length < 2 ? []
      : parts.filter((part, k) => alike.some((other) => other[k] !== part)).map(tokenText);
    return [...gains[i].filter((part) => !shared.includes(part)), ...apart].join(" · ");
  });
  $("chooser-tokens").replaceChildren(...actions.map((action, i) => el("button", {
    type: "button",
    class: "choice",
    "data-action": action.id,
    onclick: () => {
      $("chooser").close();
      post("act", { id: action.id });
    },
  }, texts[i], ...(said[i] ? [el("small", { class: "gains", text: said[i] })] : []))));
  $("chooser").showModal();
}

// ["Offerings −1"], ["Capture zones: + white die (Change)"]: a decision's `gains` in words.
function gainParts(gains) {
  return Object.entries(gains).map(([key, gain]) => (Array.isArray(gain)
    ? t("gain_items", { name: detailName(key), items: gain.map(tokenText).join(", ") })
    : t("gain_count", { name: detailName(key), change: gain > 0 ? `+${gain}` : `−${-gain}` })));
}

function focusable(node) {
  if (node.tabIndex >= 0) return;
  node.tabIndex = 0;
  node.setAttribute("role", "button");
  node.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    event.stopPropagation();
    node.click();
  });
}

// The board's marks: where decisions start, the place tapped, and where it may go from there.
function markPointing(places) {
  if (handPick !== null && !handPlays(handPick).length) handPick = null; // the game moved on
  if (handPick !== null) {
    for (const action of handPlays(handPick)) markTarget(places[action.at], action.at);
    return;
  }
  const actions = pointedActions();
  if (!snap.finding) [guess, guessWrong] = [[], false];
  for (const place of guess) places[place]?.classList.add("guessed");
  if (pointFrom !== null && !actions.some((action) => action.at === pointFrom)) pointFrom = null;
  // Where nearly every piece may start (a Voodoo turn: 47 places), the outlines say little and
  // crowd the board: they are drawn fainter.
  const starts = new Set(actions.map((action) => action.at)).size;
  document.getElementById("board").classList.toggle("many-starts", starts > MANY_STARTS);
  for (const action of actions) {
    const node = places[action.at];
    if (!node) continue;
    node.classList.add("pointable");
    focusable(node);
  }
  if (pointFrom === null) return;
  places[pointFrom]?.classList.add("pointed");
  places[pointFrom]?.setAttribute("aria-pressed", "true");
  const kinds = targetKinds(actions);
  for (const action of actions) {
    if (action.at === pointFrom && action.to !== null) {
      markTarget(places[action.to], action.to, AIMS[kinds.indexOf(kindOf(action))] ?? AIMS[0]);
    }
  }
}

// Where the piece tapped may go by decisions of several kinds (a Voodoo die: its captures, and
// the swaps of another Loa's power, paid), each kind's places have their own mark, and the words
// beside the board say which is which and what it costs (the walk: one ◎ for both, and a tap
// paid an Offering unawares).
const AIMS = ["◎", "◇", "△", "□", "☆"];
const kindOf = (action) => action.id.split(":")[0];

function targetKinds(actions) {
  return [...new Set(actions.filter((a) => a.at === pointFrom && a.to !== null).map(kindOf))];
}

function markTarget(node, place, aim = AIMS[0]) {
  if (!node) return;
  const marked = node.querySelector(":scope > .aim");
  if (marked) {
    // Reached by decisions of two kinds (a capture, and a paid swap): both marks.
    if (!marked.textContent.includes(aim)) marked.textContent += aim;
    return;
  }
  node.classList.add("target");
  node.setAttribute("aria-label", t("point_target", { place: placeText(place) }));
  node.append(el("span", { class: "aim", text: aim, "aria-hidden": "true" }));
  focusable(node);
}

// "◎ Capture · ◇ Erzulie Freda's power (Offerings −1)": the marks of `targetKinds`, once
// there are several.
function aimsText(actions) {
  const kinds = targetKinds(actions);
  if (kinds.length < 2) return null;
  return kinds.slice(0, AIMS.length).map((kind, i) => {
    const name = lookup("kinds", kind) ?? readable(kind);
    const cost = gainParts(snap.kind_gains?.[kind] ?? {});
    return cost.length ? t("aim_cost", { aim: AIMS[i], name, cost: cost.join(", ") })
      : t("aim", { aim: AIMS[i], name });
  }).join(" · ");
}

// The words beside the board: what to tap now, and the decisions taken where the piece lies.
function drawPointing() {
  const actions = pointedActions();
  const box = $("point-help");
  if (snap.finding && handPick === null && pointFrom === null) {
    // Said whether or not one is open: how to guess, the pieces picked so far, a wrong guess.
    const said = guessWrong ? t("guess_wrong", { count: snap.finding })
      : t("guess_how", { count: snap.finding, picked: guess.length });
    box.hidden = false;
    box.replaceChildren(el("p", { text: said }), ...(guess.length ? [el("button", {
      type: "button", class: "cancel", text: t("cancel"), onclick: () => { guess = []; render(); },
    })] : []));
    return;
  }
  box.hidden = actions.length === 0 && handPick === null;
  if (box.hidden) return;
  if (handPick !== null) {
    box.replaceChildren(
      el("p", { text: t("point_card", { card: tokenText(handPick) }) }),
      el("button", { type: "button", class: "cancel", text: t("cancel"), onclick: () => { handPick = null; render(); } }),
    );
    return;
  }
  if (pointFrom === null) {
    const starts = new Set(actions.map((action) => action.at)).size;
    // Places, not moves: the list below counts the moves ("1 place" beside "3 moves").
    box.replaceChildren(el("p", { text: t(starts === 1 ? "point_start_one" : "point_start", { count: starts }) }));
    return;
  }
  const here = actions.filter((action) => action.at === pointFrom && action.to === null);
  const aims = aimsText(actions);
  box.replaceChildren(
    el("p", { text: t(aims ? "point_to_marks" : "point_to", { place: placeText(pointFrom) }) }),
    ...(aims ? [el("p", { class: "aims", text: aims })] : []),
    ...here.map((action) => el("button", {
      type: "button", "data-action": action.id, text: actionText(action.id), onclick: () => decide([action]),
    })),
    el("button", {
      type: "button", class: "cancel", text: t("cancel"),
      onclick: () => { pointFrom = null; render(); },
    }),
  );
}

// The game drawn as it looks: cards as printed, dice with pips or their faces' glyphs, pieces,
// the map's ground, buildings and spawns, from the looks the game declares with its rules
// (`snap.looks`, GameType.looks). No game is named here: a game that declares no looks shows
// each token as its text.
"use strict";

const PIPS = { 1: [4], 2: [2, 6], 3: [2, 4, 6], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
const GROUND = new Set(["tile", "building", "spawn"]); // these fill their cell
const compiledLooks = new WeakMap();

function drawNode(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== "") node.textContent = text;
  return node;
}

function lightColour(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150;
}

// The declared looks with their patterns compiled, once a snapshot's looks.
function lookRules(looks) {
  let rules = compiledLooks.get(looks);
  if (!rules) {
    rules = looks.tokens.map((look) => ({
      look,
      match: new RegExp(`^(?:${look.match})$`),
      spot: look.spot ? new RegExp(`^(?:${look.spot})$`) : null,
    }));
    compiledLooks.set(looks, rules);
  }
  return rules;
}

// The look of `token` on spot `id`, its "{n}" filled from the token's groups; null if none.
function findLook(token, id, looks) {
  if (!looks || token === null || token === undefined) return null;
  for (const rule of lookRules(looks)) {
    const found = rule.match.exec(token);
    if (!found || (rule.spot && !rule.spot.test(id))) continue;
    const fill = (text) => (text ?? "").replace(/\{(\d)\}/g, (_, n) => found[Number(n)] ?? "");
    const look = rule.look;
    return {
      kind: look.kind, span: look.span ?? 1,
      colour: fill(look.colour), glyph: fill(look.glyph), label: fill(look.label), face: fill(look.face),
    };
  }
  return null;
}

// A colour name of the game's looks (a palette role, or one the game names) as "#rrggbb".
function lookColour(name, looks) {
  if (!name) return null;
  return name.startsWith("#") ? name : looks?.colours?.[name] ?? null;
}

function paint(node, colour, variable = "--body") {
  if (!colour) return;
  node.style.setProperty(variable, colour);
  node.classList.toggle("light-body", lightColour(colour));
}

// A die showing `face`: pips for a d6, an icon die's glyph and word, else the face as text.
// `kind`: the dice kind when known ("d6", an icon kind), else the game's only kind of dice.
function dieElement(face, kind, looks, colour = null) {
  const die = drawNode("span", "die");
  die.dataset.face = String(face);
  die.title = wordText(String(face)); // in the page's language (words.js)
  die.setAttribute("role", "img");
  die.setAttribute("aria-label", die.title);
  paint(die, colour);
  const dice = looks?.dice ?? [];
  const known = kind ?? (dice.length === 1 ? dice[0] : dice.includes("d6") ? "d6" : null);
  const pips = PIPS[face];
  if (pips && Number.isInteger(face) && (known === "d6" || known === null)) {
    die.classList.add("pips");
    for (let k = 0; k < 9; k++) die.append(drawNode("span", pips.includes(k) ? "pip on" : "pip"));
    return die;
  }
  const glyph = looks?.faces?.[face];
  if (glyph) {
    die.classList.add("icon");
    die.append(drawNode("span", "glyph", glyph), drawNode("span", "word", die.title));
    return die;
  }
  die.append(String(face));
  return die;
}

// Where a square sits on the board, by id, for the snapshot's board.
const boardPlaces = new WeakMap();

function placeOf(id, snapshot) {
  let places = boardPlaces.get(snapshot.board_rows);
  if (!places) {
    places = new Map();
    snapshot.board_rows.forEach((row, r) => row.forEach((square, c) => places.set(square, [r, c])));
    boardPlaces.set(snapshot.board_rows, places);
  }
  return places.get(id);
}

// A token spanning two cells (a large building) joins the neighbour that shows the same token:
// the side it is drawn across to. Spot "S.x" has its neighbours in "N.x", N beside S.
function joinSide(token, id, snapshot) {
  const dot = id.lastIndexOf(".");
  const square = dot > 0 ? id.slice(0, dot) : id;
  const suffix = dot > 0 ? id.slice(dot) : "";
  const place = placeOf(square, snapshot);
  if (!place) return null;
  const sides = { right: [0, 1], down: [1, 0], left: [0, -1], up: [-1, 0] };
  for (const [side, [dr, dc]] of Object.entries(sides)) {
    const other = snapshot.board_rows[place[0] + dr]?.[place[1] + dc];
    if (other && snapshot.spots[other + suffix]?.sensed === token) return side;
  }
  return null;
}

// Whose piece stands on `id`, by the game's `owners` detail (player -> spot): its seat colour.
function ownerColour(id, snapshot) {
  const owner = ownerOf(id, snapshot);
  return owner === null ? null : snapshot.looks.seats?.[owner] ?? null;
}

// The player whose piece the game has on `id` (the game's `owners` detail), else null.
function ownerOf(id, snapshot) {
  const looks = snapshot.looks;
  const where = looks?.owners ? snapshot.details?.[looks.owners] : null;
  if (!where || typeof where !== "object") return null;
  for (const [player, spot] of Object.entries(where)) {
    if (spot === id || (Array.isArray(spot) && spot.includes(id))) return player;
  }
  return null;
}

// The dice beneath a stack's top one, by the game's `stacks` detail (spot -> tokens, bottom first).
function stackBelow(id, snapshot) {
  const looks = snapshot.looks;
  const stack = looks.stacks ? snapshot.details?.[looks.stacks]?.[id] : null;
  return Array.isArray(stack) ? stack.slice(0, -1) : [];
}

const SHORT_LABEL = 5;

function cardPicture(src, alt, fallback) {
  const img = drawNode("img");
  img.src = src;
  img.alt = alt;
  img.decoding = "async";
  // A card of a deck the table cannot print (a file's squad): its words alone.
  img.addEventListener("error", () => img.replaceWith(drawNode("span", "on-card", fallback)));
  return img;
}

// What the sensors tell of spot `id` (its token) drawn as the game looks; null for nothing to
// draw. Without a declared look: the token as text, a mere piece left to the spot's own colour.
function tokenElement(token, id, snapshot) {
  if (token === null || token === undefined) return null;
  const looks = snapshot.looks;
  const look = findLook(token, id, looks);
  if (!look) {
    return token === "piece" || token === "present" ? null : drawNode("span", "token", token);
  }
  const ground = GROUND.has(look.kind);
  const node = drawNode("span", `token look look-${look.kind}${ground ? " look-ground" : ""}`);
  node.dataset.token = token;
  node.dataset.kind = look.kind;
  node.title = token;
  const colour = lookColour(look.colour, looks);
  if (look.kind === "card" || look.kind === "back") {
    const src = look.kind === "back" ? "/api/card/back.png"
      : `/api/card/${encodeURIComponent(snapshot.game)}/${encodeURIComponent(token)}.png`;
    // A label that is the card's id ("thermokinetic") in the page's words ("Thermocinétique").
    const label = look.label && look.label === token ? tokenText(token) : look.label;
    node.append(cardPicture(src, label || token, label || token));
    // A short value ("9×10") stays on one line, wider than a narrow card if it must; a long
    // name ("Thermokinetic") is made small enough to fit whole on the card's square.
    if (label) {
      const onCard = drawNode("span", label.length <= SHORT_LABEL ? "on-card short" : "on-card", label);
      onCard.style.setProperty("--chars", String(label.length));
      node.append(onCard);
    }
  } else if (look.kind === "die") {
    const die = dieElement(look.face || token, null, looks, colour);
    const below = stackBelow(id, snapshot);
    node.dataset.stack = String(below.length + 1);
    if (below.length) {
      // The dice beneath show as edges in their own colours, and the height as a number.
      const edges = below.reverse().map((under, k) => {
        const edge = lookColour(findLook(under, id, looks)?.colour, looks) ?? "#888888";
        return `${(k + 1) * 3}px ${(k + 1) * 3}px 0 ${edge}, ${(k + 1) * 3}px ${(k + 1) * 3}px 0 1px #000`;
      });
      die.style.boxShadow = edges.join(", ");
      node.append(die, drawNode("span", "stack", String(below.length + 1)));
    } else {
      node.append(die);
    }
  } else if (look.kind === "piece") {
    paint(node, ownerColour(id, snapshot) ?? colour);
    node.append(drawNode("span", "glyph", look.glyph || "●"));
  } else {
    paint(node, colour);
    if (look.span > 1) node.dataset.join = joinSide(token, id, snapshot) ?? "";
    const shape = drawNode("span", "shape");
    if (look.glyph) shape.append(drawNode("span", "glyph", look.glyph));
    if (look.label) shape.append(drawNode("span", "on-shape", look.label));
    node.append(shape);
  }
  return node;
}

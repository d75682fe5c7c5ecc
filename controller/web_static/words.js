// A game's words: the ids the table sends (actions, seats, details, tokens, messages) phrased
// in the page's language from the game's catalogue (controller/rules/words.py), fetched once a
// game from /api/words.json. A game without one still reads: its ids, underscores made spaces.
"use strict";

// The table's own messages (controller/session.py's `note`), and the phrases around the games'.
Object.assign(STRINGS.en, {
  note_dice: "The dice: {actions}",
  note_seen: "Seen on the table: {actions}",
  note_played: "Played: {actions}",
  note_carried_out: "Carried out for {player}: {actions}",
  note_several: "Several moves fit the table: {actions}. Choose one among the decisions.",
  note_corrected: "Dice corrected to {values}",
  note_unsure: "Dice read {values}, but unsure: confirm them or enter the right ones",
  note_camera_failing: "The camera is failing ({why}); retrying",
  note_camera_back: "The camera works again; dice that came to rest meanwhile were not read: throw them again or enter the roll",
  note_camera_ended: "No camera ({why}): enter the rolls by hand",
  note_dice_refused: "Dice not applied: {why}",
  note_journal_back: "The game record can be written again: the game goes on",
  note_paused: "Paused: the table ignores the pieces until the game resumes",
  // {thing} comes with its article ("the pawn", "Red’s spawn": `definite`).
  put_back: "Put {thing} on {place}",
  take_off: "Take {thing} off {place}",
  put_instead: "Put {thing} on {place} instead of {other}",
  owned: "{player}’s {thing}",
  dice_one: "the {kind}",
  dice_two: "both {kind}",
  dice_many: "{count} {kind}",
  to_move_words: "{player} to move",
  and_more: "{count} more",
});
Object.assign(STRINGS.fr, {
  note_dice: "Les dés : {actions}",
  note_seen: "Vu sur la table : {actions}",
  note_played: "Joué : {actions}",
  note_carried_out: "Joué pour {player} : {actions}",
  note_several: "Plusieurs coups correspondent à la table : {actions}. Choisissez-en un parmi les décisions.",
  note_corrected: "Dés corrigés en {values}",
  note_unsure: "Dés lus {values}, mais incertains : confirmez-les ou saisissez les bons",
  note_camera_failing: "La caméra ne répond pas ({why}) ; nouvel essai",
  note_camera_back: "La caméra fonctionne à nouveau ; les dés arrêtés entre-temps n’ont pas été lus : relancez-les ou saisissez le lancer",
  note_camera_ended: "Pas de caméra ({why}) : saisissez les lancers à la main",
  note_dice_refused: "Dés non appliqués : {why}",
  note_journal_back: "L’enregistrement de la partie fonctionne à nouveau : la partie continue",
  note_paused: "En pause : la table ignore les pièces jusqu’à la reprise",
  put_back: "Posez sur {place} : {thing}",
  take_off: "Enlevez de {place} : {thing}",
  put_instead: "Posez {thing} sur {place} au lieu de {other}",
  owned: "{thing} de {player}",
  dice_one: "le {kind}",
  dice_two: "les deux {kind}",
  dice_many: "{count} {kind}",
  to_move_words: "À {player} de jouer",
  and_more: "{count} de plus",
});

const gameWords = {}; // game name -> its catalogue, once fetched ({} when it has none)
const wordsAsked = new Set();

// Fetched once a game; the page is drawn again when the words arrive.
function loadWords(game) {
  if (!game || wordsAsked.has(game)) return;
  wordsAsked.add(game);
  fetch(`/api/words.json?game=${encodeURIComponent(game)}`)
    .then((response) => (response.ok ? response.json() : {}))
    .catch(() => ({}))
    .then((words) => {
      gameWords[game] = words;
      // Another game's words name what the page keeps of it: past games, the dice record.
      if (snap) translate();
    });
}

// A word of `game`'s, which may not be the game on the table (a die of the dice record);
// asked for, the page is drawn again when it comes.
function wordOf(game, section, key) {
  if (!gameWords[game]) loadWords(game);
  const words = gameWords[game] ?? {};
  return words[lang]?.[section]?.[key] ?? words.en?.[section]?.[key];
}

function catalogue() {
  return (snap && gameWords[snap.game]) || {};
}

// An entry of the game on the table, in the page's language, else in English, else undefined.
function lookup(section, key) {
  return snap ? wordOf(snap.game, section, key) : undefined;
}

function readable(id) {
  return String(id).replaceAll("_", " ");
}

function isSeat(value) {
  return typeof value === "string" && Boolean(snap?.players?.includes(value) || lookup("players", value));
}

// The name the players chose for the seat (the new-game form), else the seat's own.
function playerName(seat) {
  const chosen = snap?.names?.[snap.players?.indexOf(seat)];
  return chosen || ownName(seat);
}

// The seat's own name in the game's words ("Mamy Wata").
function ownName(seat) {
  return lookup("players", seat) ?? readable(seat);
}

// A seat by its chosen name with the game's own beside it ("Ana (Mamy Wata)"): what ties the
// player to the seat's colour and powers, which the game's words name by the seat's own.
function seatTitle(seat) {
  const name = playerName(seat);
  const own = ownName(seat);
  return name === own ? name : `${name} (${own})`;
}

// A word that an id is made of: a seat, a catalogued word, else the id made readable.
function wordText(part) {
  if (isSeat(part)) return playerName(part);
  return lookup("words", part) ?? readable(part);
}

function patterns(section) {
  const words = catalogue();
  return { ...words.en?.[section], ...words[lang]?.[section] };
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// The catalogue's phrase for an id in `section`, exact or by a pattern whose `*` stand for its
// parts: the token "civilian-3" by "civilian-*", the spot "s1.r2" by "s*.r*", the cell "r0c2"
// by "r*c*" -> "{2|letter}{1|from1}" ("C1"; words.py `starred_text`).
function patternMatch(section, id) {
  const exact = lookup(section, id);
  if (exact !== undefined) return exact;
  for (const [pattern, template] of Object.entries(patterns(section))) {
    if (!pattern.includes("*")) continue;
    const found = new RegExp(`^${pattern.split("*").map(escapeRegExp).join("(.+?)")}$`).exec(id);
    if (!found) continue;
    const parts = [...template.matchAll(/\{(\d+)\|(seat|letter|from1)\}/g)].map((m) => found[Number(m[1])]);
    if (parts.some((part) => !/^\d+$/.test(part))) continue; // "r*c*" names "r0c2", not "rocks"
    return phrased(
      template.replace(/\{(\d+)(?:\|(\w+))?\}/g, (_, n, form) => {
        const part = found[Number(n)];
        if (form === "seat") return playerName(snap.players[Number(part) - 1]); // "s2": the second seat
        return numbered(part, form) ?? wordText(part);
      }),
    );
  }
  return undefined;
}

// A whole number counted from 0 as `form` shows it: "from1" from 1 (building 0 is the first),
// "letter" as a column's letters; null for another form or a value that is no number.
function numbered(value, form) {
  if ((form !== "from1" && form !== "letter") || !/^\d+$/.test(String(value))) return null;
  return form === "from1" ? String(Number(value) + 1) : columnLetters(Number(value));
}

// A spreadsheet's column name for 0-based `number`: 0 is "A", 26 is "AA".
function columnLetters(number) {
  let name = "";
  for (let n = number + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  }
  return name;
}

// A spot's name on the board as the game's decisions say it ("round 2" for "s1.r2"); its id,
// which the command line takes, where the game has no words for it.
function spotText(id) {
  return patternMatch("spots", id) ?? id;
}

// A spot's name in a sentence, where its label on the board would not say whose it is:
// "Player 2's position 3", not "position 3".
function placeText(id) {
  return spotName(id) ?? id;
}

// A spot's name in a sentence, or undefined where the game has no words for it.
function spotName(id) {
  return patternMatch("places", id) ?? patternMatch("spots", id);
}

function tokenText(token) {
  if (token === null || token === undefined) return "–";
  return snap?.token_names?.[token] ?? patternMatch("tokens", String(token)) ?? wordText(String(token));
}

// A template's value: `form` as in words.py (seat, token, tokens, actions).
function shown(value, form) {
  if (value === null || value === undefined) return "–";
  if (form === "seat") return playerName(snap?.players?.[Number(value)] ?? String(value));
  if (form === "token") return tokenText(value);
  // A facet of a token ("token.monster": a card's monster, "40"), as the game names it.
  if (form.startsWith("token.")) return snap?.token_names?.[`${value}.${form.slice(6)}`] ?? tokenText(value);
  const number = numbered(value, form);
  if (number !== null) return number;
  if (form === "tokens") return String(value).split("+").map(tokenText).join(", ");
  if (form === "actions") return [].concat(value).map(actionText).join(t("moves_sep"));
  if (Array.isArray(value)) return value.map((item) => shown(item, "")).join(", ");
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  // A spot of the table ("s1.c3", a problem's): named as a sentence names it, with its seat.
  if (typeof value === "string" && snap?.spots?.[value] !== undefined) return placeText(value);
  if (typeof value === "string") return wordText(value);
  return String(value);
}

function fill(template, get) {
  return phrased(template.replace(/\{(\w+)(?:\|(\w+(?:\.\w+)?))?\}/g, (_, name, form) => shown(get(name), form ?? "")));
}

// An id's values by field. Values are joined by ":" and a token may hold ":" itself (a die
// "red:point"): every field takes one part, and the fields that the template calls tokens
// share what is left over.
function actionValues(template, fields, parts) {
  const tokens = new Set([...template.matchAll(/\{(\w+)\|tokens?(?:\.\w+)?\}/g)].map((m) => m[1]));
  const wide = fields.filter((field) => tokens.has(field));
  let extra = parts.length - fields.length;
  if (extra < 0 || (extra > 0 && wide.length === 0) || extra % Math.max(wide.length, 1)) return null;
  const each = wide.length ? extra / wide.length : 0;
  const values = {};
  let at = 0;
  for (const field of fields) {
    const width = tokens.has(field) ? 1 + each : 1;
    values[field] = parts.slice(at, at + width).join(":");
    at += width;
  }
  return values;
}

// "place_trap:7" -> "Lay a trap on square 7".
function actionText(id) {
  const exact = lookup("actions", id);
  if (exact !== undefined) return exact;
  const [kind, ...parts] = id.split(":");
  const template = lookup("actions", kind);
  const fields = catalogue().fields?.[kind];
  const values = template && fields ? actionValues(template, fields, parts) : null;
  if (values) return fill(template, (name) => values[name]);
  return parts.length ? `${readable(kind)}: ${parts.map(wordText).join(", ")}` : readable(kind);
}

function kindText(kind) {
  return lookup("kinds", kind) ?? readable(kind);
}

function detailName(key) {
  if (isSeat(key)) return playerName(key);
  return lookup("details", key) ?? spotName(key) ?? readable(key);
}

function valueText(key, value) {
  if (typeof value !== "string") return shown(value, "");
  const words = catalogue();
  const own = words[lang]?.values?.[key]?.[value] ?? words.en?.values?.[key]?.[value];
  // A decision's id ("capture:8x10:2x10:2x8", a forgotten capture) in words.
  const kind = value.split(":")[0];
  if (own === undefined && value.includes(":") && words.fields?.[kind]) return actionText(value);
  // A card by the name its deck gives it ("Colossus" for T1), as the board names it.
  return own ?? snap?.token_names?.[value] ?? patternMatch("tokens", value) ?? spotName(value) ?? wordText(value);
}

// "blue@0.40" is blue at 40 % (a game says so much with brightness: points, lives).
function roleName(role) {
  const [name, level] = role.split("@");
  const words = STRINGS.en[`role_${name}`] ? t(`role_${name}`) : lookup("roles", name) ?? readable(name);
  return level === undefined ? words : `${words} ${Math.round(Number(level) * 100)} %`;
}

function optionName(game, name) {
  const words = snap?.games?.[game]?.option_words;
  return words?.[lang]?.[name] ?? words?.en?.[name] ?? readable(name);
}

// An option's choice in words ("setup:roll": "rolled onto their spaces"), else as it is.
function optionChoice(game, name, choice) {
  const words = snap?.games?.[game]?.option_choice_words;
  const key = `${name}:${choice}`;
  return words?.[lang]?.[key] ?? words?.en?.[key] ?? String(choice);
}

// A spot to put right whose piece differs from the game's: one lit only because the game names
// it at fault shows as it should, and has nothing for a hand to change there.
function handFix(spot) {
  return spot.fix && wrongSpot(spot);
}

// Whether what lies on `spot` is not what the game has there.
function wrongSpot(spot) {
  return (spot.sensed ?? null) !== (spot.expected ?? null);
}

// "the pawn", but "Red’s spawn" as it is; French says what lies there after a colon, bare.
function definite(words) {
  return lang !== "en" || /['’]s /.test(words) ? words : `the ${words}`;
}

// What a hand must do to put a spot right: "Put the akuma on 8".
function fixText(id, spot) {
  // A spot within a square ("8.akuma" on square 8) is named by its square and its piece; one
  // of the board's own ("s1.r2") by its name.
  const square = squareOf(id);
  const place = placeText(square);
  const piece = square === id ? "" : id.slice(square.length + 1);
  // A reed feels "a piece": its spot says which.
  const thing = (token) => definite(token === "piece" && piece ? lookup("words", piece) ?? wordText(piece) : tokenText(token));
  // A pawn alike to the reeds is the game's player's: "Put Blue's pawn on A7", or after a
  // combat the hands move the wrong pawn there (the walk, Hostile Takeover).
  const owner = spot.expected === "piece" && !piece ? ownerOf(id, snap) : null;
  const expected = owner === null ? thing(spot.expected)
    : t("owned", { player: playerName(owner), thing: tokenText(spot.expected) });
  if (spot.expected && !spot.sensed) return t("put_back", { thing: expected, place });
  if (!spot.expected && spot.sensed) return t("take_off", { thing: thing(spot.sensed), place });
  return t("put_instead", { thing: expected, place, other: thing(spot.sensed) });
}

function diceText(wanted) {
  const [one, many] = lookup("dice", wanted.kind) ?? [readable(wanted.kind), readable(wanted.kind)];
  if (wanted.count === 1) return t("dice_one", { kind: one });
  if (wanted.count === 2) return t("dice_two", { kind: many });
  return t("dice_many", { count: wanted.count, kind: many });
}

// The header: whose turn it is and what the table waits for, or the first thing to put right.
function headerText(snap) {
  const fix = Object.entries(snap.spots).find(([, spot]) => handFix(spot));
  if (fix) return fixText(...fix);
  if (!snap.to_move) return "";
  // A seat the table plays: its prompt would speak to it ("play a card from your hand").
  const level = snap.computer?.[snap.players.indexOf(snap.to_move)];
  if (level) return t("table_seat", { player: playerName(snap.to_move), level: levelName(level) });
  const prompt = lookup("prompts", snap.details?.phase);
  if (prompt !== undefined) {
    return fill(prompt, (name) => {
      if (name === "player") return snap.to_move;
      if (name === "dice") return snap.dice_wanted ? diceText(snap.dice_wanted) : "";
      return snap.details[name];
    });
  }
  if (snap.to_move !== "chance") return t("to_move_words", { player: playerName(snap.to_move) });
  return snap.dice_wanted ? t("to_roll", { dice: diceText(snap.dice_wanted) }) : t("to_lay_out");
}

// A move and the steps that followed it, counted: "Roll both dice, and the 3 steps after it".
function stepsText([first, ...after]) {
  const vars = { first: actionText(first), count: after.length };
  return after.length === 0 ? vars.first : t(after.length === 1 ? "step_after" : "steps_after", vars);
}

// A seat's move whose words begin with that seat's name ("Player 1 lays a power card"): the
// name and the rest, for a sentence that names the player once ("Player 1 (the table) lays a
// power card"); null for a move that names it otherwise (a Loa's power: "Gran Bwa’s power").
function ownMove(seat, id) {
  const player = playerName(seat);
  const move = actionText(id);
  const rest = move.slice(player.length);
  return move.startsWith(player) && /^[\s:]/.test(rest) ? { player, rest, move } : null;
}

// The moves of `player` at the end of the log, back to another seat's decision.
function turnOf(snap, player) {
  const ids = [];
  for (let i = snap.log.length - 1; i >= 0; i--) {
    const by = snap.log_by?.[i] ?? null;
    if (by !== null && by !== player) break;
    if (by === player) ids.unshift(snap.log[i]);
  }
  return ids;
}

// The table's message: from its key and values when it has one, else as it came.
function messageText(snap) {
  const note = snap.note;
  if (!note) return snap.message || "";
  if (note.key === "problem") {
    const template = lookup("problems", note.problem);
    return template === undefined ? snap.message : fill(template, (name) => note.params[name]);
  }
  const key = `note_${note.key}`;
  if (!(key in STRINGS.en)) return snap.message || "";
  const vars = {};
  for (const [name, value] of Object.entries(note)) {
    // Other values in the game's words ("force" is "Force"), a list of them joined.
    vars[name] = name === "actions" ? value.map(actionText).join(t("moves_sep")) : shown(value, "");
  }
  // A take-back of many steps (a Mightymania duel's 19) says the move and counts the rest, as
  // the Take back button does, rather than list them all.
  if (note.key.startsWith("took_back") && note.actions.length > 2) vars.actions = stepsText(note.actions);
  // The table's turn said whole (a jump, a point scored, the turn ended), not its last move alone.
  const actions = note.key === "computer_played" ? turnOf(snap, note.player) : note.actions;
  if (note.key === "computer_played" && actions.length) {
    vars.actions = actions.map(actionText).join(t("moves_sep"));
  }
  const own = note.player && actions?.length === 1 ? ownMove(note.player, actions[0]) : null;
  if (own && `${key}_own` in STRINGS.en) return t(`${key}_own`, { ...vars, ...own });
  return t(key, vars);
}

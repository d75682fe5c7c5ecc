// "How to play": the game's guide in a dialog, and a line of help for the phase at hand. Both
// come from GET /api/guide (controller/rules/guide.py). A guide is Markdown in a small subset
// (headings, paragraphs, lists, **bold**, `code`), drawn here as elements from text: never as
// HTML.
"use strict";

const guideReplies = new Map(); // "game lang" -> a promise of the op's reply (null: none)
let helpAt = { game: null, lang: "en", phase: null }; // what the page shows now

function helpString(key, lang) {
  return STRINGS[lang]?.[key] ?? STRINGS.en[key];
}

function guideFor(game, lang) {
  const key = `${game} ${lang}`;
  if (!guideReplies.has(key)) {
    const query = new URLSearchParams({ game, lang });
    guideReplies.set(key, fetch(`/api/guide?${query}`)
      .then((response) => (response.ok ? response.json() : null))
      .catch(() => {
        guideReplies.delete(key); // the table was out of reach: ask again next time
        return null;
      }));
  }
  return guideReplies.get(key);
}

function inlineNodes(text) {
  const nodes = [];
  for (const part of text.split(/(\*\*.+?\*\*|`[^`]+`)/)) {
    if (part.length > 4 && part.startsWith("**") && part.endsWith("**")) {
      const strong = document.createElement("strong");
      strong.append(...inlineNodes(part.slice(2, -2)));
      nodes.push(strong);
    } else if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) {
      const code = document.createElement("code");
      code.textContent = part.slice(1, -1);
      nodes.push(code);
    } else if (part) {
      // A clarification's id (AK-9) is never cut at its hyphen.
      for (const piece of part.split(/\b([A-Z]{2}-\d+)\b/)) {
        if (!/^[A-Z]{2}-\d+$/.test(piece)) {
          if (piece) nodes.push(document.createTextNode(piece));
          continue;
        }
        const rule = document.createElement("span");
        rule.className = "rule";
        rule.textContent = piece;
        nodes.push(rule);
      }
    }
  }
  return nodes;
}

const LIST_ITEM = /^(- |\d+\. )/;

// Blocks are separated by blank lines: a heading, a list (its items' indented lines go on), or
// a paragraph. `# ` becomes an h2, `## ` an h3: the dialog sits below the page's h1.
function markdownNodes(markdown) {
  return markdown.trim().split(/\n\s*\n/).map((block) => {
    const lines = block.split("\n");
    const heading = /^(#{1,3}) (.*)$/.exec(lines[0]);
    if (heading) {
      const node = document.createElement(`h${heading[1].length + 1}`);
      node.append(...inlineNodes(heading[2]));
      return node;
    }
    if (LIST_ITEM.test(lines[0])) {
      const list = document.createElement(/^\d/.test(lines[0]) ? "ol" : "ul");
      const items = [];
      for (const line of lines) {
        if (LIST_ITEM.test(line)) items.push(line.replace(LIST_ITEM, ""));
        else items[items.length - 1] += ` ${line.trim()}`;
      }
      for (const item of items) {
        const li = document.createElement("li");
        li.append(...inlineNodes(item));
        list.append(li);
      }
      return list;
    }
    const paragraph = document.createElement("p");
    paragraph.append(...inlineNodes(lines.map((line) => line.trim()).join(" ")));
    return paragraph;
  });
}

async function drawGuide() {
  const { game, lang } = helpAt;
  const text = document.getElementById("guide-text");
  const reply = await guideFor(game, lang);
  if (helpAt.game !== game || helpAt.lang !== lang) return; // another game or language since
  const paragraph = document.createElement("p");
  paragraph.textContent = helpString("no_guide", lang);
  text.replaceChildren(...(reply?.ok ? markdownNodes(reply.guide) : [paragraph]));
  text.scrollTop = 0;
}

function openGuide() {
  if (!helpAt.game) return;
  drawGuide();
  document.getElementById("guide").showModal();
}

// Called with each snapshot: the help of the game's current phase (its "phase" detail) in the
// page's language, after `first` if given (pieces to put right first), or `instead` (what to do
// while the table plays); an open guide follows the game and the language.
function drawPhaseHelp(snap, lang, instead = null, first = null) {
  const phase = instead === null ? snap.details?.phase ?? null : null;
  const moved = snap.game !== helpAt.game || lang !== helpAt.lang;
  helpAt = { game: snap.game, lang, phase };
  if (moved && document.getElementById("guide").open) drawGuide();
  const box = document.getElementById("phase-help");
  if (instead !== null) {
    box.hidden = false;
    box.querySelector("p").textContent = first ? `${first} ${instead}` : instead;
    return;
  }
  if (phase === null) {
    box.hidden = true;
    return;
  }
  guideFor(snap.game, lang).then((reply) => {
    if (helpAt.game !== snap.game || helpAt.lang !== lang || helpAt.phase !== phase) return;
    const text = reply?.ok ? reply.phases[phase] : undefined;
    box.hidden = !text;
    if (text) box.querySelector("p").replaceChildren(...(first ? [`${first} `] : []), ...inlineNodes(text));
  });
}

document.getElementById("guide-open").addEventListener("click", openGuide);
// A click on the backdrop, outside the dialog's box, closes it as Escape does.
document.getElementById("guide").addEventListener("click", (event) => {
  if (event.target === event.currentTarget) event.currentTarget.close();
});

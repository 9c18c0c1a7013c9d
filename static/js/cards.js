// Cards drawn in SVG (no external assets). Suits are drawn as shapes, so they differ by
// form and not only by colour; the four-colour option also gives ♦ and ♣ their own colours.

import { translator } from "./i18n.js";

const SUIT_SHAPES = {
  "♥": '<path d="M50 92C22 68 2 50 2 29 2 13 14 3 28 3c10 0 18 6 22 15 4-9 12-15 22-15 14 0 26 10 26 26 0 21-20 39-48 63z"/>',
  "♦": '<path d="M50 2 90 50 50 98 10 50z"/>',
  "♠": '<path d="M50 2C40 24 2 40 2 63c0 15 11 25 25 25 9 0 16-4 20-11-1 9-5 16-13 21h32c-8-5-12-12-13-21 4 7 11 11 20 11 14 0 25-10 25-25C98 40 60 24 50 2z"/>',
  "♣": '<circle cx="50" cy="27" r="22"/><circle cx="25" cy="60" r="22"/><circle cx="75" cy="60" r="22"/><path d="M45 55c0 20-5 33-13 43h36c-8-10-13-23-13-43z"/>',
};

const SUIT_CLASS = { "♠": "spades", "♣": "clubs", "♥": "hearts", "♦": "diamonds" };

/** `"10♦"` → `{rank: "10", suit: "♦"}`; the joker `"Jk"` has suit "". */
export function parseCard(text) {
  if (text === "Jk") return { rank: "Jk", suit: "" };
  return { rank: text.slice(0, -1), suit: text.slice(-1) };
}

function suitSvg(suit, x, y, size) {
  const scale = size / 100;
  return `<g transform="translate(${x} ${y}) scale(${scale})">${SUIT_SHAPES[suit]}</g>`;
}

/** A card's index in the deck of `lang`: the court cards and the ace are the dictionary's
 * letters (`card.J` …: Russian decks letter В Д К Т, Bulgarian ones В Д П А — вале, дама,
 * поп, асо —, English keeps J Q K A); the numbers are the same everywhere. */
function rankIn(rank, t) {
  return "JQKA".includes(rank) ? t(`card.${rank}`) : rank;
}

/** A card written in text («10♠», «Т♥», «Джокер»), as its face indexes it: the history,
 * the replay and the hand's text file (app/i18n.py `card_name`) use this, never the
 * engine's Latin «A♥» or «Jk». `t`: the page's translator (i18n.js). */
export function cardName(text, t) {
  if (!text) return "?";
  const { rank, suit } = parseCard(text);
  return rank === "Jk" ? t("card.joker") : `${rankIn(rank, t)}${suit}`;
}

/** The face of a card as an SVG string (viewBox 60×84), indexed in the deck of `lang`; the
 * joker's word is the deck's too («Джокер»), its corner a star rather than a letter that
 * reads as a jack. */
export function cardFace(text, lang = "ru") {
  const { rank, suit } = parseCard(text);
  const t = translator(lang);
  if (rank === "Jk") {
    const word = t("card.joker");
    return (
      '<svg class="face joker" viewBox="0 0 60 84" aria-hidden="true">' +
      '<rect x="1" y="1" width="58" height="82" rx="6" class="paper"/>' +
      '<path class="star corner" d="M11 7l1.8 3.7 4 .6-2.9 2.8.7 4L11 16.2l-3.6 1.9.7-4-2.9-2.8 4-.6z"/>' +
      '<path class="star" d="M30 26l5.3 10.8 11.9 1.7-8.6 8.4 2 11.8L30 53.1l-10.6 5.6 2-11.8-8.6-8.4 11.9-1.7z"/>' +
      `<text x="30" y="74" class="joker-word" text-anchor="middle">${word}</text></svg>`
    );
  }
  return (
    `<svg class="face ${SUIT_CLASS[suit]}" viewBox="0 0 60 84" aria-hidden="true">` +
    '<rect x="1" y="1" width="58" height="82" rx="6" class="paper"/>' +
    `<text x="${rank === "10" ? 4 : 6}" y="21" class="rank">${rankIn(rank, t)}</text>` +
    suitSvg(suit, 6, 25, 13) +
    suitSvg(suit, 17, 36, 36) +
    "</svg>"
  );
}

/**
 * One card: face up when `text` is given, else its back. `extra` adds classes (dealt,
 * tappable…); `delay` staggers the deal animation so cards arrive one by one.
 */
export function cardHtml(text, { extra = "", delay = 0, index = 0, lang = "ru" } = {}) {
  const style = delay ? ` style="animation-delay:${delay}ms"` : "";
  const label = text ? ` aria-label="${cardName(text, translator(lang))}" data-card="${text}"` : ' aria-label="?"';
  const inner = text ? cardFace(text, lang) : '<div class="back"></div>';
  return `<div class="card ${text ? "up" : "down"} ${extra}" data-index="${index}"${label}${style}>${inner}</div>`;
}

import type { Rng } from './prng.js';
import { FILLER, type Theme } from './synth-vocab.js';

/**
 * Text of the synthetic corpus: titles, sentences and paragraphs built from a theme's vocabulary
 * mixed with general filler. `focus` (0..1) is the share of slots filled from the theme's words;
 * the rest come from general filler. Output is plain text (no HTML escaping needed: the
 * vocabularies contain no markup characters).
 */

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const titleCase = (s: string): string => s.split(' ').map((x) => (x.length > 3 || /^[a-z]/.test(x) === false ? cap(x) : x)).join(' ');

function slot(rng: Rng, theme: Theme, focus: number, kind: 'nouns' | 'verbs' | 'adjs'): string {
  return rng.chance(focus) ? rng.pick(theme[kind]) : rng.pick(FILLER[theme.lang][kind]);
}

function enSentence(rng: Rng, t: Theme, f: number): string {
  const N = () => slot(rng, t, f, 'nouns');
  const V = () => slot(rng, t, f, 'verbs');
  const A = () => slot(rng, t, f, 'adjs');
  const F = FILLER.en;
  switch (rng.int(0, 6)) {
    case 0: return `The ${A()} ${N()} ${V()} the ${N()}.`;
    case 1: return `According to ${rng.pick(F.who)}, the ${N()} ${rng.pick(F.advs)} ${V()} a ${A()} ${N()}.`;
    case 2: return `In ${rng.int(1998, 2024)}, every ${N()} ${V()} the ${A()} ${N()} of the ${N()}.`;
    case 3: return `This ${N()} ${V()} how a ${A()} ${N()} ${V()} the ${N()} ${rng.pick(['today', 'this year', 'in practice', 'at last'])}.`;
    case 4: return `${cap(rng.pick(F.who))} say the ${N()} ${rng.pick(F.advs)} ${V()} the ${N()}, and the ${A()} ${N()} ${V()} it too.`;
    case 5: return `Why the ${N()} ${V()} a ${A()} ${N()} is a question ${rng.pick(F.who)} ${rng.pick(['keep asking', 'often raise', 'rarely answer'])}.`;
    default: return `A ${A()} ${N()}, a ${A()} ${N()} and the ${N()} ${rng.pick(F.advs)} ${V()} the ${N()}.`;
  }
}

function zhSentence(rng: Rng, t: Theme, f: number): string {
  const N = () => slot(rng, t, f, 'nouns');
  const V = () => slot(rng, t, f, 'verbs');
  const A = () => slot(rng, t, f, 'adjs');
  const F = FILLER.zh;
  switch (rng.int(0, 6)) {
    case 0: return `${N()}${rng.pick(F.advs)}${V()}${A()}的${N()}。`;
    case 1: return `据${rng.pick(F.who)}介绍，${N()}${V()}${N()}，${N()}${rng.pick(F.advs)}${V()}。`;
    case 2: return `${rng.int(1998, 2024)}年以来，${N()}${V()}${A()}${N()}，取得了${A()}的成效。`;
    case 3: return `${rng.pick(F.who)}表示，要${rng.pick(F.advs)}${V()}${N()}，${V()}${A()}的${N()}和${N()}。`;
    case 4: return `在${N()}方面，${N()}${V()}了${N()}，${rng.pick(F.who)}对此${rng.pick(['给予肯定', '十分关注', '充满期待'])}。`;
    case 5: return `目前，${A()}${N()}已经${V()}，${N()}与${N()}${rng.pick(F.advs)}${V()}。`;
    default: return `${N()}、${N()}和${N()}是${A()}${N()}的${rng.pick(['关键', '基础', '重点', '难点'])}。`;
  }
}

export function sentence(rng: Rng, theme: Theme, focus: number): string {
  return theme.lang === 'en' ? enSentence(rng, theme, focus) : zhSentence(rng, theme, focus);
}

const POOL_SIZE = 600;

/**
 * Sentences drawn from per-(theme, focus) pools that are filled on first use from the Rng given
 * at construction (building each sentence afresh is the generator's bottleneck). Deterministic
 * as long as calls come in the same order. One TextSource per generated corpus. Its text is
 * HTML-safe (markup characters escaped).
 */
export class TextSource {
  private readonly pools = new Map<Theme, Map<number, string[]>>();
  constructor(private readonly rng: Rng) {}

  sentence(theme: Theme, focus: number): string {
    let byFocus = this.pools.get(theme);
    if (byFocus === undefined) this.pools.set(theme, (byFocus = new Map()));
    let pool = byFocus.get(focus);
    if (pool === undefined) {
      pool = [];
      for (let i = 0; i < POOL_SIZE; i++) pool.push(escapeHtml(sentence(this.rng, theme, focus)));
      byFocus.set(focus, pool);
    }
    return pool[Math.floor(this.rng.next() * pool.length)];
  }

  /** A paragraph of `min`..`max` sentences. */
  paragraph(theme: Theme, focus: number, min = 3, max = 6): string {
    const k = this.rng.int(min, max);
    let out = this.sentence(theme, focus);
    const sep = theme.lang === 'en' ? ' ' : '';
    for (let i = 1; i < k; i++) out += sep + this.sentence(theme, focus);
    return out;
  }
}

/** A headline about the theme. */
export function title(rng: Rng, theme: Theme): string {
  const N = () => rng.pick(theme.nouns);
  const V = () => rng.pick(theme.verbs);
  const A = () => rng.pick(theme.adjs);
  const G = FILLER[theme.lang];
  if (theme.lang === 'en') {
    switch (rng.int(0, 5)) {
      case 0: return titleCase(`How the ${A()} ${N()} ${V()} the ${N()}`);
      case 1: return titleCase(`${rng.int(3, 12)} things to know about the ${N()}`);
      case 2: return titleCase(`${A()} ${N()}: a ${rng.pick(G.adjs)} ${rng.pick(G.nouns)}`);
      case 3: return titleCase(`Why every ${N()} ${V()} a ${N()}`);
      case 4: return titleCase(`The ${N()} and the ${A()} ${N()}`);
      default: return titleCase(`${rng.pick(G.adjs)} ${rng.pick(G.nouns)} on the ${N()}`);
    }
  }
  switch (rng.int(0, 5)) {
    case 0: return `${N()}${V()}${A()}${N()}`;
    case 1: return `${rng.int(2015, 2024)}年${N()}${rng.pick(G.nouns)}报告`;
    case 2: return `关于${N()}的${rng.int(3, 12)}个问题`;
    case 3: return `${A()}${N()}：${rng.pick(G.advs)}${rng.pick(G.verbs)}${rng.pick(G.nouns)}`;
    case 4: return `${rng.pick(G.who)}谈${N()}与${N()}`;
    default: return `${N()}${rng.pick(G.nouns)}${rng.pick(['取得新进展', '迎来新机遇', '亟待规范', '稳中有进'])}`;
  }
}

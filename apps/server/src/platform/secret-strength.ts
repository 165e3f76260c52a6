import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * How many bits an attacker who knows how people make "random" strings needs to guess a secret:
 * zxcvbn's model (Wheeler, USENIX Security 2016) cut down to what a server secret needs. The
 * secret is split into the cheapest sequence of pieces, each either
 * - a common password or word (zxcvbn's 49k passwords by rank, the 7,776 diceware words),
 * - a keyboard walk (qwerty, qwertz, azerty, dvorak, keypads: "qwertyuiop", "zxcvbn", "1qaz2wsx"),
 * - a sequence ("abcd", "13579", "zyx"),
 * - a repetition of a piece ("passwordpassword", "abab…"), priced as its first copy,
 * - or characters guessed one by one from the character classes the secret uses (4 bits for hex).
 * Each recognised piece costs 2 more bits (which kind of piece it is), so a random string gains
 * little from an accidental "cafe" or "123" inside it. The whole model is a guesser's, not a proof:
 * it is used to refuse the weak, never to bless a secret as strong.
 *
 * The character-by-character cost never exceeds the secret's real randomness for the usual forms
 * (`openssl rand -hex 32`: 4 bits a digit; base64/base64url: 6 bits), so random secrets score
 * about their true entropy minus the accidents.
 */

export interface SecretPiece {
  readonly kind: 'word' | 'keyboard walk' | 'sequence' | 'repetition';
  readonly text: string;
}

export interface SecretStrength {
  readonly bits: number;
  /** The recognised pieces of the cheapest split, in order (random characters are not listed). */
  readonly pieces: readonly SecretPiece[];
}

const PIECE_BITS = 2;
const MIN_PIECE_LENGTH = 3;
const MAX_ANALYSED = 128;

let words: Map<string, number> | undefined;
/** Lower-cased word → rank (1 = most common). Diceware words rank 7,776: they are drawn uniformly. */
function wordRanks(): Map<string, number> {
  if (words) return words;
  words = new Map();
  const diceware = dictionary['diceware-common'] as string[];
  for (const word of diceware) words.set(word.toLowerCase(), diceware.length);
  (dictionary['passwords-common'] as string[]).forEach((word, index) => {
    const key = word.toLowerCase();
    if (key.length >= MIN_PIECE_LENGTH) words!.set(key, Math.min(index + 1, words!.get(key) ?? Infinity));
  });
  return words;
}
const MAX_WORD_LENGTH = 24;

type Graph = Record<string, ReadonlyArray<string | null>>;
/** Characters typed with Shift on a US keyboard (zxcvbn's rule for the first key of a walk). */
const SHIFTED = /[~!@#$%^&*()_+QWERTYUIOP{}|ASDFGHJKL:"ZXCVBNM<>?]/;
interface Keyboard {
  readonly graph: Graph;
  /** Starting keys and average number of neighbours: zxcvbn's spatial guess formula. */
  readonly keys: number;
  readonly degree: number;
}
let keyboards: Keyboard[] | undefined;
function keyboardList(): Keyboard[] {
  keyboards ??= Object.values(adjacencyGraphs as unknown as Record<string, Graph>).map((graph) => {
    const entries = Object.values(graph);
    const degree = entries.reduce((sum, neighbours) => sum + neighbours.filter(Boolean).length, 0) / entries.length;
    return { graph, keys: entries.length, degree };
  });
  return keyboards;
}

function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

/** Bits of the cheapest keyboard walk for chars[i..j], per zxcvbn's formula (turns, shifted keys). */
function walkBits(keyboard: Keyboard, length: number, turns: number, shifted: number): number {
  let guesses = 0;
  for (let i = 2; i <= length; i++) {
    for (let j = 1; j <= Math.min(turns, i - 1); j++) guesses += binomial(i - 1, j - 1) * keyboard.keys * keyboard.degree ** j;
  }
  if (shifted > 0) {
    const unshifted = length - shifted;
    if (unshifted === 0) guesses *= 2;
    else {
      let variations = 0;
      for (let i = 1; i <= Math.min(shifted, unshifted); i++) variations += binomial(length, i);
      guesses *= variations;
    }
  }
  return Math.log2(guesses);
}

interface Match {
  readonly start: number;
  readonly end: number; // inclusive
  readonly bits: number;
  readonly piece: SecretPiece;
}

function wordMatches(chars: readonly string[]): Match[] {
  const ranks = wordRanks();
  const matches: Match[] = [];
  const lower = chars.map((c) => c.toLowerCase());
  for (let i = 0; i < chars.length; i++) {
    let key = lower.slice(i, i + MIN_PIECE_LENGTH - 1).join('');
    for (let j = i + MIN_PIECE_LENGTH - 1; j < Math.min(chars.length, i + MAX_WORD_LENGTH); j++) {
      key += lower[j]!;
      const rank = ranks.get(key);
      if (rank === undefined) continue;
      const text = chars.slice(i, j + 1).join('');
      // Capitals: one bit for a first capital or all capitals, one per letter otherwise.
      const capitals = [...text].filter((c) => c !== c.toLowerCase()).length;
      const letters = [...text].filter((c) => c !== c.toUpperCase() || c !== c.toLowerCase()).length;
      const caseBits = capitals === 0 ? 0 : /^\p{Lu}[^\p{Lu}]*$/u.test(text) || capitals === letters ? 1 : letters;
      matches.push({ start: i, end: j, bits: Math.log2(rank) + caseBits, piece: { kind: 'word', text } });
    }
  }
  return matches;
}

function walkMatches(chars: readonly string[]): Match[] {
  const matches: Match[] = [];
  for (const keyboard of keyboardList()) {
    let i = 0;
    while (i < chars.length - 1) {
      let j = i;
      let direction = -1;
      let turns = 0;
      let shifted = SHIFTED.test(chars[i]!) ? 1 : 0;
      while (j + 1 < chars.length) {
        const neighbours = keyboard.graph[chars[j]!] ?? [];
        const found = neighbours.findIndex((keys) => keys?.includes(chars[j + 1]!));
        if (found < 0) break;
        if (found !== direction) turns++;
        direction = found;
        if (neighbours[found]!.indexOf(chars[j + 1]!) === 1) shifted++;
        j++;
      }
      if (j - i + 1 >= MIN_PIECE_LENGTH) {
        const text = chars.slice(i, j + 1).join('');
        matches.push({ start: i, end: j, bits: walkBits(keyboard, j - i + 1, turns, shifted), piece: { kind: 'keyboard walk', text } });
      }
      i = Math.max(i + 1, j);
    }
  }
  return matches;
}

function sequenceMatches(chars: readonly string[]): Match[] {
  const matches: Match[] = [];
  const classOf = (c: string) => (/\d/.test(c) ? 'digit' : /[a-z]/.test(c) ? 'lower' : /[A-Z]/.test(c) ? 'upper' : null);
  let i = 0;
  while (i < chars.length - 1) {
    const kind = classOf(chars[i]!);
    const delta = chars[i + 1]!.codePointAt(0)! - chars[i]!.codePointAt(0)!;
    let j = i + 1;
    if (kind && delta !== 0 && Math.abs(delta) <= 5 && classOf(chars[j]!) === kind) {
      while (j + 1 < chars.length && classOf(chars[j + 1]!) === kind && chars[j + 1]!.codePointAt(0)! - chars[j]!.codePointAt(0)! === delta) j++;
      if (j - i + 1 >= MIN_PIECE_LENGTH) {
        const first = chars[i]!;
        const base = 'aAzZ019'.includes(first) ? 4 : kind === 'digit' ? 10 : 26;
        const guesses = base * (j - i + 1) * (delta < 0 ? 2 : 1) * Math.abs(delta);
        matches.push({ start: i, end: j, bits: Math.log2(guesses), piece: { kind: 'sequence', text: chars.slice(i, j + 1).join('') } });
        i = j;
        continue;
      }
    }
    i++;
  }
  return matches;
}

/** Bits per character guessed one by one: the character classes present (hex digits count as 16). */
function characterBits(chars: readonly string[]): number {
  const text = chars.join('');
  if (/^[0-9a-f-]*$/.test(text) || /^[0-9A-F-]*$/.test(text)) return text.includes('-') ? Math.log2(17) : 4;
  let cardinality = 0;
  if (/\d/.test(text)) cardinality += 10;
  if (/[a-z]/.test(text)) cardinality += 26;
  if (/[A-Z]/.test(text)) cardinality += 26;
  if (/[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(text)) cardinality += 33;
  if (/[^\x20-\x7e]/.test(text)) cardinality += 100;
  return Math.log2(Math.max(cardinality, 2));
}

/** Estimates a secret's strength against a pattern-aware guesser (see the module comment). */
export function secretStrength(secret: string): SecretStrength {
  // Past MAX_ANALYSED characters the rest can only add strength; the bound keeps the work small.
  return estimate([...secret].slice(0, MAX_ANALYSED), new Map());
}

function estimate(chars: readonly string[], cache: Map<string, SecretStrength>): SecretStrength {
  const key = chars.join('');
  const cached = cache.get(key);
  if (cached) return cached;
  const perCharacter = characterBits(chars);
  const matches = [...wordMatches(chars), ...walkMatches(chars), ...sequenceMatches(chars), ...repetitionMatches(chars, cache)];
  const endingAt: Match[][] = chars.map(() => []);
  for (const match of matches) endingAt[match.end]!.push(match);
  // best[k]: the cheapest split of the first k characters.
  const best: Array<{ bits: number; pieces: SecretPiece[] }> = [{ bits: 0, pieces: [] }];
  for (let k = 1; k <= chars.length; k++) {
    let choice = { bits: best[k - 1]!.bits + perCharacter, pieces: best[k - 1]!.pieces };
    for (const match of endingAt[k - 1]!) {
      const bits = best[match.start]!.bits + match.bits + PIECE_BITS;
      if (bits < choice.bits) choice = { bits, pieces: [...best[match.start]!.pieces, match.piece] };
    }
    best.push(choice);
  }
  const result = best[chars.length]!;
  cache.set(key, result);
  return result;
}

/** A piece repeated back to back, priced as the piece plus how many times it repeats. */
function repetitionMatches(chars: readonly string[], cache: Map<string, SecretStrength>): Match[] {
  const matches: Match[] = [];
  for (let i = 0; i < chars.length; i++) {
    for (let size = 1; i + 2 * size <= chars.length; size++) {
      let copies = 1;
      while (i + (copies + 1) * size <= chars.length && sameRun(chars, i, i + copies * size, size)) copies++;
      if (copies < 2 || copies * size < MIN_PIECE_LENGTH) continue;
      const base = chars.slice(i, i + size);
      const baseBits = size === 1 ? characterBits(chars) : estimate(base, cache).bits;
      matches.push({
        start: i,
        end: i + copies * size - 1,
        bits: baseBits + Math.log2(copies),
        piece: { kind: 'repetition', text: chars.slice(i, i + copies * size).join('') },
      });
    }
  }
  return matches;
}

function sameRun(chars: readonly string[], a: number, b: number, size: number): boolean {
  for (let k = 0; k < size; k++) if (chars[a + k] !== chars[b + k]) return false;
  return true;
}

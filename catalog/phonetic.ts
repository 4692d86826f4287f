/**
 * A consonant skeleton shared by Arabic and Latin spellings of one name, so a
 * shop's Arabic transliteration finds the Latin name and back:
 * سوفاج and sauvage → "sfj", خمرة and khamrah → "kmrh", شانيل and chanel → "xnl".
 *
 * Vowels (and the Arabic letters that write them: ا و ي ى, and ع, which Latin
 * spellings drop) are removed; letters that shops use for one sound fall into
 * one class (p/b, v/f, g/j/gh, q/k/kh/c, ch/sh, th/t...); repeats collapse.
 * Input is a token already folded by normalizeText.
 */

const ARABIC: Record<string, string> = {
  ب: 'b',
  پ: 'b',
  ت: 't',
  ط: 't',
  ث: 't',
  ج: 'j',
  چ: 'x',
  غ: 'j',
  گ: 'j',
  ح: 'h',
  ه: 'h',
  خ: 'k',
  ك: 'k',
  ق: 'k',
  د: 'd',
  ض: 'd',
  ذ: 'z',
  ز: 'z',
  ظ: 'z',
  ر: 'r',
  س: 's',
  ص: 's',
  ش: 'x',
  ف: 'f',
  ڤ: 'f',
  ل: 'l',
  م: 'm',
  ن: 'n',
};

function latinSkeleton(word: string): string {
  let out = '';
  const w = word;
  for (let i = 0; i < w.length; i++) {
    const c = w[i] as string;
    const next = w[i + 1] ?? '';
    const pair = c + next;
    let cls = '';
    if (pair === 'kh' || pair === 'ck' || pair === 'qu' || pair === 'gh') {
      cls = pair === 'gh' ? 'j' : 'k';
      i++;
    } else if (pair === 'sh' || pair === 'ch') {
      cls = 'x';
      i++;
    } else if (pair === 'ph') {
      cls = 'f';
      i++;
    } else if (pair === 'th' || pair === 'dh') {
      cls = c === 't' ? 't' : 'z';
      i++;
    } else if (pair === 'sc' && w[i + 2] === 'h') {
      cls = 'x';
      i += 2;
    } else {
      switch (c) {
        case 'b':
        case 'p':
          cls = 'b';
          break;
        case 'f':
        case 'v':
          cls = 'f';
          break;
        case 'c':
          cls = 'eiy'.includes(next) ? 's' : 'k';
          break;
        case 'k':
        case 'q':
          cls = 'k';
          break;
        case 'g':
        case 'j':
          cls = 'j';
          break;
        case 'x':
          cls = i === 0 ? 'z' : 'ks';
          break;
        case 'z':
          cls = 'z';
          break;
        case 's':
        case 't':
        case 'd':
        case 'h':
        case 'l':
        case 'm':
        case 'n':
        case 'r':
          cls = c;
          break;
        default:
          // vowels, w, y and digits carry no consonant
          cls = '';
      }
    }
    for (const ch of cls) if (out[out.length - 1] !== ch) out += ch;
  }
  return out;
}

function arabicSkeleton(word: string): string {
  let out = '';
  for (const c of word) {
    const cls = ARABIC[c] ?? '';
    if (cls && out[out.length - 1] !== cls) out += cls;
  }
  return out;
}

export function skeleton(token: string): string {
  return /[\u0600-\u06FF]/.test(token) ? arabicSkeleton(token) : latinSkeleton(token);
}

/**
 * The skeletons a token may stand for. Gulf shops write a hard "g" with ق
 * (قوتشي Gucci, قلتي Guilty), elsewhere a "q"/"k": a word with ق has both;
 * a word with the article ال written on has one without it too.
 */
export function skeletons(token: string): string[] {
  const out = [skeleton(token)];
  if (token.includes('ق')) out.push(arabicSkeleton(token.replaceAll('ق', 'غ')));
  // the article written onto a name (القيم for "Al Qiam" or "Qiam", الحرمين for "Haramain")
  if (token.startsWith('ال') && token.length > 4) out.push(arabicSkeleton(token.slice(2)));
  return [...new Set(out)];
}

/** Local users live beside Google's, never colliding with a Google subject id. */
const LOCAL_PREFIX = 'local:';
const MAX_NAME = 60;

/**
 * Letters that look like another, each read as the one below it (case kept: Greek Η reads
 * as H, where η would not): Cyrillic and Greek letters that look Latin, and the Latin and
 * digit forms that read as one another in a sans-serif font (I, l, 1, |; O, 0). A name
 * typed with them keys the same account as its look-alike, where it is refused as a
 * different spelling instead of becoming a second account that reads the same. The common
 * cases of Unicode's confusables (UTS #39), not all of them.
 */
const LOOK_ALIKE_FROM = 'АВСЕНІЈКМОРԚЅТԜХУҮӀасԁеһіјорԛѕԝхуӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧαινορυI1|ıȷɡ0';
const LOOK_ALIKE_TO = 'ABCEHlJKMOPQSTWXYYlacdehijopqswxylABEZHlKMNOPTYXaivopulllijgo';
const LOOK_ALIKES = new Map([...LOOK_ALIKE_FROM].map((letter, i) => [letter, LOOK_ALIKE_TO[i]]));

/** Who a local sign-in names: the account's key, and the spelling typed. */
export interface LocalIdentity {
  key: string;
  /** The key an account made before look-alikes were folded has. */
  legacyKey: string;
  fullName: string;
}

type LocalName = { ok: true; identity: LocalIdentity } | { ok: false; message: string };

/**
 * The account key of a local name: compatibility forms folded (NFKC: full-width letters,
 * ligatures), look-alike letters read as the one they look like, case folded. Two names
 * with one key are one account, which only its own spelling signs in to.
 */
export function localAccountKey(name: string): string {
  const plain = name
    .normalize('NFKC')
    .replace(/./gu, (letter) => LOOK_ALIKES.get(letter) ?? letter);
  return `${LOCAL_PREFIX}${plain.toLowerCase().normalize('NFKC')}`;
}

/**
 * The key local accounts had before look-alikes were folded: the lower-cased name. An
 * account made then is still found under it, by its own spelling only.
 */
function legacyLocalAccountKey(name: string): string {
  return `${LOCAL_PREFIX}${name.toLowerCase()}`;
}

/** The identity of a local sign-in under the name typed into the form. */
export function localIdentity(raw: unknown): LocalName {
  const name = typeof raw === 'string' ? raw.normalize('NFKC').trim().replace(/\s+/g, ' ') : '';
  if (name === '') return { ok: false, message: 'Enter a name to sign in with.' };
  if (name.length > MAX_NAME) {
    return { ok: false, message: `Use at most ${MAX_NAME} characters.` };
  }
  // Control, invisible and direction-changing characters (zero-width spaces, RTL marks),
  // unassigned and private-use code points: names that read like another's.
  if (/\p{C}/u.test(name)) return { ok: false, message: 'Use letters, digits and spaces.' };
  return {
    ok: true,
    identity: {
      key: localAccountKey(name),
      legacyKey: legacyLocalAccountKey(name),
      fullName: name,
    },
  };
}

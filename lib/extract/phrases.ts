/**
 * Boilerplate that says what it is in words rather than in class names: the "Read also:" line a
 * CMS puts between paragraphs, "Related articles" over a list of teasers, a photo credit, "Leave
 * a comment", "Share this article", an "Advertisement" label, a paywall's "subscribe to read the
 * full story". Pages give these blocks no telling class (or the same class as the prose), so the
 * name-based pruning in boilerplate.ts cannot see them; their wording is what a reader recognises
 * them by, in every language a news site writes.
 *
 * Pure functions of a block's text: boilerplate.ts decides which blocks to ask about (short ones
 * only: a phrase inside a paragraph of prose is the article talking, not furniture).
 *
 * The phrases are the conventions of news and blog publishing in the languages of the pages this
 * was measured on (German, English, French, Spanish, Polish, Italian, Portuguese, Dutch), not
 * strings taken from particular pages; bench:extract checks them on a half of trafilatura's corpus
 * they were not written from.
 */

let lastIn = '';
let lastOut = '';

/**
 * Whitespace folded and typographic variants made plain, lower-cased. The last result is kept:
 * boilerplate.ts asks every predicate here about the same block in turn.
 */
export function phraseText(text: string): string {
  if (text === lastIn) return lastOut;
  lastIn = text;
  lastOut = text
    .replace(/[\u00a0\s]+/g, ' ')
    .replace(/[’‘]/g, "'")
    .trim()
    .toLowerCase();
  return lastOut;
}

// "Read also: <a link>" — a lead-in to another article, with the link after it.
const READ_ALSO = new RegExp(
  '^[\\s»>›\\-–—*]*(?:' +
    [
      'read (?:also|more|next)', 'also read', 'see also', 'related(?: article| story| post)?', 'recommended', 'more on this(?: story)?', 'don\'t miss',
      'lesen sie (?:auch|mehr|hier|dazu)(?: (?:die|den|das|diese[nrs]?|folgende[nr]?|unsere[nrs]?|weitere[nr]?) ?(?:\\S+ ){0,2}\\S*)?', 'lies auch', 'auch lesen', 'zum weiterlesen', 'mehr themen', 'auch interessant', 'mehr zum thema', 'siehe auch', 'schon gelesen', 'passend dazu', 'zum thema', 'weiterlesen',
      'à lire (?:aussi|également)', 'lire (?:aussi|également)', 'voir aussi', 'sur le même sujet',
      'lea (?:también|más|además)', 'lee (?:también|más)', 'vea (?:también|más)', 'mire', 'lea', '(?:le|te) puede interesar', 'puedes ver', 'mira', 'véase también', 'ver también', 'también te puede interesar',
      'czytaj (?:też|także|więcej|również)', 'zobacz (?:też|także|również)', 'przeczytaj (?:też|także|również)', 'polecamy', 'dowiedz się więcej',
      'leggi anche', 'leia (?:também|mais)', 'veja (?:também|mais)', 'saiba mais', 'lees ook', 'lees meer',
    ].join('|') +
    ')\\s*(?:[:?!»›>|\\-–—]|$)',
);

/** A block that leads to another article: "Lea también: …", "Czytaj też: …", "Schon gelesen?". */
export function readAlsoLine(text: string): boolean {
  return READ_ALSO.test(phraseText(text));
}

// A heading over a section that is not the article: related reading, the latest posts, comments.
const OTHER_SECTION = new RegExp(
  '^(?:' +
    [
      'related(?: articles| posts| stories| content| news| links| reading| topics)?', 'more (?:from|on|about|stories|news|articles|to read|in)\\b.*', 'you (?:may|might) (?:also )?(?:like|enjoy|be interested in)',
      'recommended(?: for you| reading| articles| stories)?', 'latest(?: news| articles| posts| stories)?', 'most (?:read|popular|viewed|shared)', 'popular(?: posts| articles| now)?', 'recent (?:posts|articles|comments)',
      'further reading', 'read (?:more|also|next)', 'see also', 'also read', 'trending(?: now)?', 'what to read next', 'up next', 'next (?:article|post|story)', 'previous (?:article|post|story)',
      'ähnliche(?: themen| artikel| beiträge| posts| rezepte)?', '(?:das|dieses? \\S+|das thema) könnte (?:dich|sie|euch) (?:auch )?interessieren', 'auch interessant', 'mehr zum thema.*', 'weitere (?:beiträge|artikel|themen|nachrichten|news|meldungen|tourentipps|rezepte)\\b.*',
      'neueste (?:artikel|beiträge|posts|nachrichten)', 'neue(?:ste)? beiträge', 'meistgelesen(?:e)?(?: artikel)?', 'meist[- ](?:gelesen|diskutiert|kommentiert|geklickt)', 'empfohlene (?:beiträge|artikel)', 'zum weiterlesen', 'mehr themen', 'empfehlungen', 'unsere empfehlungen?', 'verwandte (?:artikel|themen|beiträge)', 'noch mehr.*', 'mehr (?:von|aus|zum|zu)\\b.*',
      'schon gelesen', 'lesen sie auch', 'vorschau auf den nächsten artikel', 'nächster artikel', 'vorheriger artikel', 'top-themen', 'top themen', 'aktuelle (?:beiträge|artikel|nachrichten)',
      'à lire (?:aussi|également)', 'lire aussi', 'sur le même (?:sujet|thème)', 'articles? (?:similaires|liés|connexes|récents)', 'dans la même rubrique', 'les plus lus', 'vous aimerez aussi', 'à voir aussi', '(?:audios|vidéos|articles) et (?:vidéos|audios|articles) sur le sujet',
      'noticias relacionadas', '(?:te|le) puede interesar', 'también te puede interesar', 'más noticias', 'lo más leído', 'artículos relacionados', 'más (?:de|en)\\b.*',
      'czytaj (?:też|także)', 'zobacz (?:też|także)', 'polecane(?: artykuły)?', 'najczęściej czytane', 'najnowsze(?: artykuły)?', 'podobne artykuły',
      'leggi anche', 'articoli correlati', 'potrebbe interessarti', 'i più letti', 'leia também', 'veja também', 'notícias relacionadas', 'mais lidas',
      'gerelateerde artikelen', 'lees ook', 'meest gelezen',
    ].join('|') +
    ')\\s*[:?!.…»›]*$',
);

/** The heading of a related-reading section ("Mehr zum Thema", "À lire aussi", "Related stories"). */
export function otherSectionHeading(text: string): boolean {
  const t = phraseText(text);
  return t.length <= 80 && OTHER_SECTION.test(t);
}

const ABOUT_AUTHOR = /^(?:about the (?:author|writer)s?|über (?:den|die) autor(?:in|en)?|zu[mr] autor(?:in)?|die autorin|der autor|à propos de l'auteur|l'auteur|sobre el autor|sobre la autora|o autorze|l'autore|sobre o autor|over de auteur)\s*[:.]?$/;

/** The heading of an author box ("Über den Autor", "About the author"). */
export function authorHeading(text: string): boolean {
  return ABOUT_AUTHOR.test(phraseText(text));
}

// Photo credits: "Foto: dpa", "© AFP / Marco Bertorello", "Bild: Werk/Christian Houdek", "Credit: Grist".
const CREDIT_LABEL =
  '(?:©|\\(c\\)|copyright|fotos?|foto(?:grafie|grafía|grafia)?|bild(?:er)?|titelbild|aufmacherbild|bildquelle|photos?|photograph(?:y|ed)?(?: by)?|photo credit|image(?: credit| source)?s?|credits?|crédits?(?: photos?)?|crédito|imagen|fuente|źródło|zdjęci[ea]|fot\\.|quelle|source|fonte|foto\'s)';
const CREDIT_LINE = new RegExp(`^[\\s(\\[*]*${CREDIT_LABEL}\\s*(?::|©|\\bby\\b|-|–)`);
const COPYRIGHT_LINE = /^[\s(\[*-]*©/;
/** Picture agencies and stock libraries, as credits name them ("aja/PAP", "(mlharing / iStock.com)"). */
const AGENCY = '(?:dpa|afp|ap|reuters|epa|pap|ansa|efe|kna|epd|apa|keystone|xinhua|anadolu|getty(?: images)?|shutterstock(?:\\.com)?|istock(?:photo)?(?:\\.com)?|imago(?: images)?|picture[- ]alliance|wenn(?:\\.com)?|unsplash|pixabay|adobe ?stock|stock\\.adobe\\.com|fotolia|colourbox|depositphotos)';
const AGENCY_LINE = new RegExp(`^[\\s(]*(?:[\\p{L}.'-]+ ?){0,4}/ ?${AGENCY}[\\s)]*$`, 'u');
const AGENCY_TAIL = new RegExp(`\\s*\\((?:[^()/]{1,40}/ ?)?${AGENCY}\\)\\s*$`, 'iu');

/** A short line that only credits a picture or a source ("Foto: Getty", "(© FEI/Christophe Taniere)"). */
export function creditLine(text: string): boolean {
  const t = phraseText(text);
  return CREDIT_LINE.test(t) || COPYRIGHT_LINE.test(t) || AGENCY_LINE.test(t);
}

// A credit at the end of a caption: "… im Überblick. (Foto: Getty)", "… Foto: Andina", "… © Pferderevue".
const TRAILING_CREDIT = new RegExp(`(?:^|[\\s.,;|/–—-])\\(?\\s*(?:${CREDIT_LABEL})\\s*(?::|©|\\bby\\b)\\s*[^:]{1,80}$|\\s*\\(?©\\s*[^©]{1,80}$`, 'iu');
/**
 * In prose, only a picture's label after a sentence's end or in brackets makes a trailing credit
 * ("… im Überblick. (Foto: Getty)"): "Quelle:" may cite a fact, "a tax credit: $500" is prose.
 */
const TRAILING_PICTURE_CREDIT = /(?:[.|/–—-]\s*\(?|\()\s*(?:©|fotos?|bild|photos?|photograph(?:ed)? by|credit|crédits? photos?|crédito|imagen|zdjęcie|fot\.)\s*(?::|©|\bby\b)\s*[^:]{1,80}$|\s*\(?©\s*[^©]{1,80}$/iu;
/** At most this many words after the label: a credit names a person, an agency, a site. */
const MAX_CREDIT_WORDS = 8;

/**
 * `text` without a picture credit at its end, or null when it has none. In a caption any credit
 * label counts; elsewhere (`caption` false) only a picture's.
 */
export function withoutTrailingCredit(text: string, caption = true): string | null {
  const agency = AGENCY_TAIL.exec(text);
  if (agency && agency.index > 0) return text.slice(0, agency.index);
  const m = (caption ? TRAILING_CREDIT : TRAILING_PICTURE_CREDIT).exec(text);
  if (!m || m.index === 0) return null;
  const credit = m[0];
  if ((credit.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) > MAX_CREDIT_WORDS + 1) return null;
  // The sentence's full stop before the credit is the sentence's.
  const end = m.index + (text[m.index] === '.' ? 1 : 0);
  return text.slice(0, end).replace(/[\s|,;–—-]+$/, '');
}

const LABELS = /^[\s\-–—*[(]*(?:advertisement|advertising|sponsored(?: content)?|anzeige|werbung|publicidad|publicité|reklama|pubblicità|publicidade|advertentie|paid (?:content|post)|promoted)[\s\-–—*\])]*:?$/;

const LOAD_MORE = /^(?:lade|mehr|weitere) (?:weitere |mehr )?(?:inhalte|artikel|beiträge|laden|anzeigen)\b|^(?:load|show|see|view) more\b|^(?:voir|charger) plus\b|^(?:cargar|ver) más\b|^(?:załaduj|pokaż) więcej\b/;

/** An ad's label leading its text ("ANZEIGE - Heute mal ausgehen?", "*Werbung. Dieser Beitrag enthält Werbung"). */
const LABELLED_AD = /^[\s\-–—*[(]*(?:anzeige|werbung|advertisement|sponsored|publicidad|reklama)\s*[-–—.:|)\]]/;
const AFFILIATE = /\b(?:provision|commission|affiliate)\b.{0,80}\b(?:links?|händler|retailers?|partner)\b|\b(?:links?|partner)\b.{0,80}\b(?:provision|commission)\b/;
/** Buttons and links a page repeats around articles: print, PDF, back to the list, rate this. */
const UTILITY = /^(?:(?:rezept|artikel|seite|beitrag|page|article|recipe) )?(?:drucken|ausdrucken|print)(?: (?:this|artikel|page|article|recipe))?$|\bals pdf herunterladen$|^(?:download|save) (?:as )?pdf$|^(?:zurück|back|retour|volver)(?: (?:zu[rm]?|to|à|a) .{0,40})?$|^(?:valora|bewerten sie|bewerte|rate|évaluez|oceń) (?:esta|diesen|dieses|this|cet|ten)\b/;

/**
 * An advertisement's label standing alone ("Anzeige", "- Anzeige -", "Advertisement:") or leading a
 * short ad, an affiliate note, a "Load more", print or back button.
 */
export function adLabel(text: string): boolean {
  const t = phraseText(text);
  if (LABELS.test(t) || (t.length <= 40 && (LOAD_MORE.test(t) || UTILITY.test(t)))) return true;
  return t.length <= 200 && (LABELLED_AD.test(t) || AFFILIATE.test(t));
}

const COMMENT_PROMPTS: RegExp[] = [
  /^(?:keine|no|0|null|noch keine|pas de|aucun|sin|brak) (?:kommentare?|comments?|responses?|replies|antworten|commentaires?|comentarios?|komentarzy)\b/,
  /\b(?:kommentare?|kommentar) (?:schreiben|verfassen|hinterlassen|abgeben|geschlossen|sind geschlossen|anzeigen|einblenden)\b/,
  /^(?:kommentieren|kommentare|comments?|kommentar schreiben|antworten|reply|répondre|responder)$/,
  /\b(?:leave|post|add|write) a (?:comment|reply)\b/, /^comments? (?:are )?closed\b/, /\bcomments? (?:are|is) closed\b/,
  /\b(?:must|musst|müssen|muss) .{0,40}(?:logged in|eingeloggt|angemeldet|registriert).{0,60}(?:comment|kommentar)/,
  /(?:comment|kommentar|kommentier).{0,60}(?:logged in|eingeloggt|angemeldet sein)/,
  /^(?:pingback|trackback)\b/, /^this entry was posted\b/, /\bbookmark the permalink\b/, /\bbloggern gefällt das\b/, /\bbloggers like this\b/, /^\d+ (?:comments?|kommentare?|responses?|commentaires?|comentarios?)$/,
  /^(?:verraten|schreib(?:t|en sie)?|sagen|erzähl(?:t|en sie)?) (?:sie |uns |es |mir )*(?:gerne |doch |uns )*(?:in den|im) kommentar/,
  /^(?:laisser|laissez) un commentaire/, /^(?:deja|dejar) un comentario/, /^(?:dodaj|napisz) komentarz/,
];

/**
 * A word every one of COMMENT_PROMPTS holds: one search rules out the most blocks, where trying
 * the patterns one by one was the phrase pass's largest cost (extend it with the list).
 */
const COMMENT_WORDS = /comment|komment|coment|koment|respons|respond|répond|repl|antwort|pingback|trackback|entry was posted|permalink|gefällt das|like this/;

/** A comment section's own lines: "Kommentare schreiben", "No Response so far", "Leave a comment". */
export function commentPrompt(text: string): boolean {
  const t = phraseText(text);
  return COMMENT_WORDS.test(t) && COMMENT_PROMPTS.some((re) => re.test(t));
}

const SHARE_PROMPTS: RegExp[] = [
  /^(?:share|teilen|partager|compartir|condividi|udostępnij|compartilhe|delen)(?: (?:this|it|on|via|den|diesen|this article|this story|this post|artikel|beitrag|l'article|cet article|este artículo))*\s*[:!.]?$/,
  /(?:artikel|beitrag|post|article|story|seite).{0,40}\b(?:teilen|share|partager|compartir|condividi)\b.{0,20}[:?!.]?$/,
  /^(?:gefällt|hat dir|hat ihnen|did you) .{0,40}(?:teilen|share)/,
  /^(?:if you (?:enjoyed|liked|found) (?:this|reading)|enjoyed this (?:article|post)|liked this (?:article|post))/,
];

/** "Share this article", "Möchten Sie den Artikel teilen?", "Artikel gefallen? Vergiss nicht zu teilen!". */
export function sharePrompt(text: string): boolean {
  const t = phraseText(text);
  return t.length <= 120 && SHARE_PROMPTS.some((re) => re.test(t));
}

const SUBSCRIBE_PROMPTS: RegExp[] = [
  /\b(?:subscribe|subscription|subscribers?|sign up|log in|already a subscriber)\b.{0,80}\b(?:full (?:story|article)|to (?:read|continue|view)|for (?:the full|unlimited|access)|immediate access|this story)\b/,
  /\b(?:to (?:read|view|continue reading) (?:the full|this|the rest))\b.{0,60}\b(?:subscribe|sign (?:up|in)|log in|register)\b/,
  /\b(?:pour lire la suite|lire la suite de cet article|réservé aux abonnés)\b/,
  /\b(?:weiterlesen mit|jetzt abonnieren|mit (?:plus|abo) weiterlesen|dieser artikel ist (?:nur )?für abonnenten)\b/,
  // "Download our app", "the Nationnews apps for iOS": not "get the new version of the app" in prose.
  /\b(?:download|get|install) (?:our|the \S+) apps?\b/, /\bapps? for (?:ios|android|iphone)\b/, /\bstraight to your (?:phone|inbox)\b/, /\bsign(?:ing)? up (?:for|to) (?:our|the) newsletter\b/, /^(?:never miss|verpasse?n? (?:sie )?keine)\b/, /^follow (?:us|\S+(?: \S+){0,3}) on (?:twitter|facebook|instagram|x|linkedin|tiktok)\b/,
  /\b(?:zapraszamy|zachęcamy) .{0,20}(?:subskrypcj|prenumerat)/, /\bsuscr[ií]b(?:ete|ase)\b/, /\bcanal de telegram\b/,
];

/** A word every one of SUBSCRIBE_PROMPTS holds (as COMMENT_WORDS: one search first; extend it with the list). */
const SUBSCRIBE_WORDS = /subscri|sign|log in|register|lire la suite|réservé|weiterlesen|abonn|app|straight to your|newsletter|never miss|verpass|follow|subskrypcj|prenumerat|suscr|telegram/;

/** A paywall's or an app's call to subscribe ("To view the full story, please subscribe"). */
export function subscribePrompt(text: string): boolean {
  const t = phraseText(text);
  return t.length <= 300 && SUBSCRIBE_WORDS.test(t) && SUBSCRIBE_PROMPTS.some((re) => re.test(t));
}

const LICENSE_NOTICES: RegExp[] = [
  /\b(?:licensed under|lizenziert|unter (?:der|einer) (?:lizenz|creative commons)|sous licence|bajo (?:una )?licencia|na licencji)\b/,
  /\b(?:all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos reservados|wszelkie prawa zastrzeżone)\b/,
  /\b(?:creative commons|cc[- ]by(?:[- ](?:nc|sa|nd))*)\b.{0,80}\b(?:licen[cs]e|lizenz|licence|licencia|licencji)\b/,
  /^(?:copyright|©)\s*(?:\d{4}|\(c\))/,
  /^\(?(?:alle )?angaben ohne gewähr\)?$/, /\bgibt (?:die|nur die) meinung de[rs] (?:autors?|autorin|verfassers|verfasserin)\b/, /\bthe (?:views|opinions) expressed\b/, /\bnot (?:necessarily )?(?:reflect|represent) the (?:views|opinions)\b/,
];

/** A licence, copyright or disclaimer notice ("Dieser Text wurde veröffentlicht unter der Lizenz CC-BY-NC-ND"). */
export function legalNotice(text: string): boolean {
  const t = phraseText(text);
  return t.length <= 300 && LICENSE_NOTICES.some((re) => re.test(t));
}

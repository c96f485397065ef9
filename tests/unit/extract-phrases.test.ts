import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { pruneBoilerplate } from '../../lib/extract/boilerplate';
import { adLabel, authorHeading, commentPrompt, creditLine, legalNotice, otherSectionHeading, readAlsoLine, sharePrompt, subscribePrompt, withoutTrailingCredit } from '../../lib/extract/phrases';

function holder(html: string): Element {
  const doc = new JSDOM(`<!doctype html><body><div id="root">${html}</div></body>`, { virtualConsole: new VirtualConsole() }).window.document;
  return doc.getElementById('root')!;
}

const prose = (n: number) =>
  Array.from({ length: n }, (_, i) => `<p>Sentence ${i} of the article goes on with plain words that a reader came for and nothing else.</p>`).join('');

describe('boilerplate phrases', () => {
  it('knows "read also" lead-ins in the languages news sites write, and not prose that starts alike', () => {
    for (const t of ['Lesen Sie auch die folgenden Beiträge:', 'Dowiedz się więcej: Kto jak głosował', 'VEA TAMBIÉN: Entre heces', 'Lea también: Impiden ingreso', 'Czytaj też: Wyścig zbrojeń', 'Schon gelesen?', 'À lire aussi » Ballonnements', 'READ MORE: The story', 'LE PUEDE INTERESAR: La ficha', 'Lesen Sie auch: Der Fall'])
      expect(readAlsoLine(t), t).toBe(true);
    for (const t of ['Read the full report on the council website.', 'Lea la ley completa', 'Mira Lobe wrote children’s books', 'Related to this, the council voted'])
      expect(readAlsoLine(t), t).toBe(false);
  });

  it('knows the headings of related-reading, comment and author sections', () => {
    for (const t of ['Mehr zum Thema', 'Ähnliche Themen', 'Das könnte dich auch interessieren', 'Related stories', 'Neueste Artikel', 'Sur le même sujet', 'Noticias relacionadas:'])
      expect(otherSectionHeading(t), t).toBe(true);
    for (const t of ['Related work in the field of optics', 'Latest results from the trial', 'Die neuesten Messungen'])
      expect(otherSectionHeading(t), t).toBe(false);
    expect(authorHeading('Über den Autor')).toBe(true);
    expect(authorHeading('About the author')).toBe(true);
    expect(authorHeading('The author’s early life')).toBe(false);
  });

  it('knows credits, ad labels and prompts, and leaves sentences that merely mention them', () => {
    for (const t of ['aja/PAP', 'Judy Eddy/WENN.com', 'Foto: unsplash/Bill Mead', '(© FEI/Christophe Taniere)', 'Crédits photos : Bestimage', 'Photograph by Ed Marshall', 'Źródło: ISBnews']) expect(creditLine(t), t).toBe(true);
    expect(creditLine('Fotos of the trip are on the next page')).toBe(false);
    expect(creditLine('Input/output')).toBe(false);
    for (const t of ['ANZEIGE - Heute mal ausgehen/bestellen? Wie wäre es mit:', '*Werbung. Dieser Beitrag enthält Werbung für MYMARINI.', 'Für Links auf dieser Seite erhält CHIP ggf. eine Provision vom Händler', 'Rezept drucken', 'zurück zur Listenansicht', 'Valora esta noticia'])
      expect(adLabel(t), t).toBe(true);
    expect(adLabel('Back in 2010 the council voted to close the harbour for good.')).toBe(false);
    for (const t of ['Anzeige', '- Anzeige -', 'Advertisement:', 'Lade weitere Inhalte ...', 'Load more']) expect(adLabel(t), t).toBe(true);
    expect(adLabel('Advertisements paid for the campaign')).toBe(false);
    for (const t of ['Kommentare schreiben', 'No Response so far', 'Keine Kommentare (Kommentare erscheinen erst nach Freigabe)', 'Du musst Eingeloggt sein um Kommentare zu schreiben!', 'Leave a reply', '%d Bloggern gefällt das:'])
      expect(commentPrompt(t), t).toBe(true);
    expect(commentPrompt('The minister declined to comment on the report.')).toBe(false);
    for (const t of ['Möchten Sie den Artikel teilen?', 'Artikel gefallen? Vergiss nicht zu teilen!', 'Share this article', 'If you enjoyed reading this post – would you consider supporting our work?'])
      expect(sharePrompt(t), t).toBe(true);
    expect(sharePrompt('The company’s share price fell by a third after the report.')).toBe(false);
    expect(subscribePrompt('To view the full story, please subscribe to The Times.')).toBe(true);
    expect(subscribePrompt('Subscribers to the journal complained about the price rise.')).toBe(false);
    expect(subscribePrompt('For the latest stories download the Nationnews apps for iOS and Android.')).toBe(true);
    expect(subscribePrompt('In order to get the new version of the app, Google Play sends your device a patch.')).toBe(false);
    for (const t of ['Dieser Text wurde veröffentlicht unter der Lizenz CC-BY-NC-ND-4.0-DE.', 'Die Inhalte dieser Website sind unter einer Creative Commons-Lizenz lizenziert.', '© 2021 Example Media. All rights reserved.'])
      expect(legalNotice(t), t).toBe(true);
    expect(legalNotice('The court ruled on the licence fee the broadcaster charges.')).toBe(false);
    expect(legalNotice('Dieser Beitrag gibt die Meinung des Autors wieder, nicht notwendigerweise die der Redaktion.')).toBe(true);
    expect(subscribePrompt('Never miss the latest news by signing up to our newsletter today!')).toBe(true);
    expect(commentPrompt('This entry was posted in Allgemein. Bookmark the permalink.')).toBe(true);
  });

  it('finds a line of each kind of comment prompt behind its one-search gate', () => {
    // One line per pattern of COMMENT_PROMPTS, in its order: a word missing from the gate fails here.
    const lines = [
      'Noch keine Kommentare', 'Kommentare sind geschlossen', 'Responder', 'Post a comment', 'Comments closed', 'Comments are closed for this article',
      'Sie müssen angemeldet sein, um einen Kommentar zu schreiben', 'Zum Kommentieren müssen Sie eingeloggt sein', 'Pingback: another blog',
      'This entry was posted in News', 'Bookmark the permalink', '3 Bloggern gefällt das', 'Be the first of 2 bloggers like this',
      '12 commentaires', 'Verraten Sie uns gerne in den Kommentaren', 'Laissez un commentaire', 'Dejar un comentario', 'Napisz komentarz', 'No replies',
    ];
    for (const t of lines) expect(commentPrompt(t), t).toBe(true);
    // And one per pattern of SUBSCRIBE_PROMPTS.
    const subscribe = [
      'Subscribe now to read the full story', 'To continue reading this article, please register', 'Pour lire la suite, abonnez-vous', 'Jetzt abonnieren und weiterlesen',
      'Download our app', 'Our apps for Android', 'News straight to your inbox', 'Sign up for our newsletter', 'Verpassen Sie keine Nachrichten',
      'Follow Example News on Twitter', 'Zapraszamy do subskrypcji', 'Suscríbete al boletín', 'Únete a nuestro canal de Telegram',
    ];
    for (const t of subscribe) expect(subscribePrompt(t), t).toBe(true);
  });

  it('takes a picture credit off the end of a caption, and a sentence’s own words stay', () => {
    expect(withoutTrailingCredit('Marco Odermatt, Ski-Star aus der Schweiz. © AFP / MARCO BERTORELLO')).toBe('Marco Odermatt, Ski-Star aus der Schweiz.');
    expect(withoutTrailingCredit('Son tres los periodos de vacaciones. Foto: Andina')).toBe('Son tres los periodos de vacaciones.');
    expect(withoutTrailingCredit('Golf im TV: Die Übertragungszeiten im Überblick. (Foto: Getty)', false)).toBe('Golf im TV: Die Übertragungszeiten im Überblick.');
    // In prose only a picture's label after a sentence counts: a "credit:" in a sentence is the sentence.
    expect(withoutTrailingCredit('Families can claim a tax credit: up to 500 dollars a year', false)).toBeNull();
    expect(withoutTrailingCredit('Die Zahlen stammen vom Amt. Quelle: Statistisches Bundesamt', false)).toBeNull();
    expect(withoutTrailingCredit('Foto: dpa')).toBeNull(); // all credit: creditLine's to drop whole
    expect(withoutTrailingCredit('Das Hermelin ist im Winter gut getarnt.  (mlharing / iStock.com)', false)).toBe('Das Hermelin ist im Winter gut getarnt.');
  });
});

describe('pruneBoilerplate by phrases', () => {
  it('drops "read also" lines, a related section under its heading, an author box, credits, prompts; the article stays', () => {
    const root = holder(`<h1>Title</h1>${prose(3)}
      <p><strong>Lea también:</strong> <a href="/otra">Impiden ingreso a reportero</a></p>
      ${prose(2)}
      <figure><img src="/a.jpg" alt=""><figcaption>Der Hafen am Morgen. Foto: dpa/Max Muster</figcaption></figure>
      <p>Foto: unsplash/Bill Mead</p>
      <p>- Anzeige -</p>
      <h3>Über den Autor</h3><p>Max schreibt seit 1999 über Häfen und Schiffe.</p>
      <h2>Mehr zum Thema</h2><ul><li><a href="/x">Ein anderer Artikel über Häfen</a></li><li><a href="/y">Noch ein Artikel</a></li></ul>
      <p>Kommentare schreiben</p>
      <p>Möchten Sie den Artikel teilen?</p>`);
    pruneBoilerplate(root);
    const text = root.textContent!.replace(/\s+/g, ' ');
    expect(text).toContain('Sentence 2 of the article');
    expect(text).toContain('Der Hafen am Morgen.');
    for (const gone of ['Lea también', 'Impiden ingreso', 'dpa/Max Muster', 'Bill Mead', 'Anzeige', 'Über den Autor', 'seit 1999', 'Mehr zum Thema', 'Ein anderer Artikel', 'Kommentare schreiben', 'teilen'])
      expect(text, gone).not.toContain(gone);
  });

  it('empties a table cell that is furniture rather than removing it, so the columns stay in place', () => {
    const root = holder(`<h1>Title</h1>${prose(4)}<table><tr><td>Anzeige</td><td>Price</td><td>12 EUR</td></tr></table>`);
    pruneBoilerplate(root);
    expect(root.querySelectorAll('td').length).toBe(3);
    expect(root.querySelector('td')!.textContent).toBe('');
    expect(root.textContent).toContain('12 EUR');
  });

  it('drops a labelled publication date and keeps a labelled date that is a fact of the article', () => {
    const root = holder(`<h1>Title</h1><p>Publiziert: 03.04.2020, 12:35</p>${prose(4)}<p>Termin: 29.02.2020, 19 Uhr</p>`);
    pruneBoilerplate(root);
    expect(root.textContent).not.toContain('Publiziert');
    expect(root.textContent).toContain('Termin: 29.02.2020');
  });

  it('keeps a section under a related-sounding heading when it is prose, and a comment thread that is the page', () => {
    const essay = holder(`<h1>Title</h1>${prose(3)}<h2>Related work</h2>${prose(2)}<h2>Latest</h2>${prose(30)}`);
    pruneBoilerplate(essay);
    expect(essay.querySelectorAll('p').length).toBe(35);
    const thread = holder(`<h1>Forum</h1><div class="comments">${prose(6)}<h3>Comments</h3>${prose(6)}</div>`);
    pruneBoilerplate(thread);
    expect(thread.textContent).toContain('Comments');
  });
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The text of an HTML-escaped string (the search API escapes all but its `<em>` marks). */
function unescapeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#')
      return String.fromCodePoint(
        name[1] === 'x' || name[1] === 'X'
          ? Number.parseInt(name.slice(2), 16)
          : Number(name.slice(1)),
      );
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * A highlight of the search API as text with `<mark>`s: the string is split at its `<em>`
 * marks and each part shown as text, so nothing in an entry is ever read as HTML.
 */
export function Highlighted({ html }: { html: string }) {
  const parts = html.split(/<\/?em>/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <mark key={i}>{unescapeHtml(part)}</mark>
        ) : (
          <span key={i}>{unescapeHtml(part)}</span>
        ),
      )}
    </>
  );
}

/** Names are stored and compared in Unicode NFC, so look-alike spellings are one name (decisions.md §5). */
export const normalizeName = (text: string): string => text.normalize('NFC');

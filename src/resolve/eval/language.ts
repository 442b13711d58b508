import { profileForPath } from '../syntax/languages.js';

/** A language name for reports, from the file name only (the language table's name, else "Other"). */
export function languageOfPath(path: string): string {
  return profileForPath(path)?.name ?? 'Other';
}

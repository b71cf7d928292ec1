/**
 * A flag's value as an error message shows it after "not": the text itself,
 * or `an empty value` for `--flag=` (which read as a message cut short).
 */
export function shownValue(text: string): string {
  return text === '' ? 'an empty value' : text;
}

/**
 * A URL as a refusal shows it (stderr lands in CI logs): `…@` in place of its
 * user and password, and its query or fragment, which may hold a password or
 * a key (`?password=`, `?api-key=`), cut to `?…` or `#…`. The credentials go
 * first, through the last `@`: a password holding `?` or `#` is not cut in
 * two with its first half shown.
 */
export function shownUrl(text: string): string {
  const bare = text.replace(/^([^/@]*\/\/)?.*@/s, '$1…@');
  const cut = bare.search(/[?#]/);
  return cut === -1 ? bare : `${bare.slice(0, cut + 1)}…`;
}
